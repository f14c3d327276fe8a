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
    /** `revoke` withdraws a pending or approved (not yet consumed) request; it carries no reason or edit. */
    decision: z.enum(['approve', 'deny', 'revoke']),
    reason: z.string().max(1000).optional(),
    editedArguments: z.unknown().optional(),
    /** Under a passkey rule: the WebAuthn assertion (base64url fields) over the decision's claims; checked by the gate. */
    passkeyAssertion: z.unknown().optional(),
  })
  .strict()
  .refine((body) => body.decision !== 'revoke' || body.passkeyAssertion === undefined, {
    message: 'a revocation carries no passkey assertion',
    path: ['passkeyAssertion'],
  })
  .refine((body) => body.decision === 'approve' || body.editedArguments === undefined, {
    message: 'editedArguments only go with approve',
    path: ['editedArguments'],
  })
  // The ledger records no reason with a revocation; accepting one would drop it silently.
  .refine((body) => body.decision !== 'revoke' || body.reason === undefined, {
    message: 'a revocation carries no reason',
    path: ['reason'],
  });

export const RequestStatusFilter = z.enum(['pending', 'approved', 'denied', 'revoked', 'consumed', 'expired', 'edited']);


export type DecisionBody = z.infer<typeof DecisionBody>;
