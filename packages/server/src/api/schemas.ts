import { Id } from '@countersign/core/wire';
import { z } from 'zod';

/* The agent-route bodies live in `@countersign/core/wire`, shared with the client. */

/**
 * A decision carries the request id and the choice, nothing else: no tool name, no
 * arguments, no approver (seed 004). Any other field is refused before anything happens.
 */
export const DecisionBody = z
  .object({
    requestId: Id,
    /**
     * `revoke` withdraws a pending or approved (not yet consumed) request; `withdraw` takes back the
     * caller's own approval of a request still pending (n of m). Neither carries a reason, an edit or a passkey assertion.
     */
    decision: z.enum(['approve', 'deny', 'revoke', 'withdraw']),
    reason: z.string().max(1000).optional(),
    editedArguments: z.unknown().optional(),
    /** Under a passkey rule: the WebAuthn assertion (base64url fields) over the decision's claims; checked by the gate. */
    passkeyAssertion: z.unknown().optional(),
  })
  .strict()
  .refine((body) => (body.decision !== 'revoke' && body.decision !== 'withdraw') || body.passkeyAssertion === undefined, {
    message: 'a revocation or withdrawal carries no passkey assertion',
    path: ['passkeyAssertion'],
  })
  .refine((body) => body.decision === 'approve' || body.editedArguments === undefined, {
    message: 'editedArguments only go with approve',
    path: ['editedArguments'],
  })
  // The ledger records no reason with a revocation; accepting one would drop it silently.
  .refine((body) => (body.decision !== 'revoke' && body.decision !== 'withdraw') || body.reason === undefined, {
    message: 'a revocation or withdrawal carries no reason',
    path: ['reason'],
  });

export const RequestStatusFilter = z.enum(['pending', 'approved', 'denied', 'revoked', 'consumed', 'expired', 'edited']);


export type DecisionBody = z.infer<typeof DecisionBody>;
