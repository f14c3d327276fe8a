import { z } from 'zod';

/** Ids are opaque strings of bounded length; the gate applies the same bound. */
export const Id = z.string().min(1).max(256);

export const ProposalsBody = z
  .object({
    runId: Id,
    sessionId: Id,
    principal: Id,
    modelResponseRef: Id.optional(),
    toolCalls: z
      .array(
        z
          .object({
            id: Id,
            name: Id,
            /** JSON text (OpenAI style) or an object; canonicalized strictly by the gate. */
            arguments: z.unknown(),
          })
          .strict(),
      )
      .min(1)
      .max(128),
  })
  .strict();

/**
 * `proposalId` (from the proposals outcome) selects the call; the other ids are
 * optional cross-checks that must match the recorded call.
 */
export const DispatchBody = z
  .object({
    proposalId: Id,
    runId: Id.optional(),
    callId: Id.optional(),
    sessionId: Id.optional(),
    principal: Id.optional(),
    token: z.string().min(1).max(8192).optional(),
    toolName: Id.optional(),
    arguments: z.unknown().optional(),
  })
  .strict();

/**
 * A decision carries the request id and the choice, nothing else: no tool name, no
 * arguments, no approver (seed 004). Any other field is refused before anything happens.
 */
export const DecisionBody = z
  .object({
    requestId: Id,
    decision: z.enum(['approve', 'deny']),
    reason: z.string().max(1000).optional(),
    editedArguments: z.unknown().optional(),
  })
  .strict()
  .refine((body) => body.decision === 'approve' || body.editedArguments === undefined, {
    message: 'editedArguments only go with approve',
    path: ['editedArguments'],
  });

export const RequestStatusFilter = z.enum(['pending', 'approved', 'denied', 'revoked', 'consumed', 'expired']);

/** PUT /tools: the agent's tool definitions; each is checked strictly by the gate (`parseToolDefinition`). */
export const ToolsBody = z
  .object({ tools: z.array(z.record(z.string(), z.unknown())).min(1).max(256) })
  .strict();
