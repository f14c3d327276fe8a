import { AuthorizeOutcomeSchema, Id } from '@countersign/core/wire';
import { z } from 'zod';

/*
 * Response bodies the server builds itself (approver views, audit pages, dispatch), for
 * the OpenAPI document. Loose objects: the fields listed are always there and typed;
 * fields added later pass, so the document never refuses an answer a newer view gives.
 * The agent routes' answers are core/wire's schemas, the ones the client parses with.
 */

const Status = z.enum(['pending', 'approved', 'denied', 'revoked', 'consumed', 'expired', 'edited']);

export const ApprovalViewSchema = z.looseObject({
  requestId: Id,
  status: z.string().max(64).describe(`The request's effective status: ${Status.options.join(', ')}.`),
  createdAt: z.number(),
  expiresAt: z.number(),
  approvals: z.number().int().nonnegative(),
  requiredApprovals: z.number().int().positive(),
  ruleId: z.string().optional(),
  call: z.looseObject({
    proposalId: Id,
    toolName: Id,
    canonicalArguments: z.string().describe('The call arguments as RFC 8785 canonical JSON text'),
    argsDigest: z.string(),
    principal: Id,
    agent: Id,
    runId: Id,
    sessionId: Id,
    callId: Id,
  }),
  decisions: z.array(z.looseObject({ approver: Id, decision: z.string(), at: z.number() })),
});

export const ApprovalListResponse = z.object({ approvals: z.array(ApprovalViewSchema) });

export const DecisionResponse = z.looseObject({
  request: ApprovalViewSchema.nullable().describe('The request after the decision; null when it could not be read back (the decision stands)'),
  editedRequest: ApprovalViewSchema.optional().describe('Approve-with-edits: the edited call, its own request'),
  auditRecorded: z.literal(false).optional().describe('Present when the decision took effect but its audit record could not be written'),
});

export const AuditPageResponse = z.looseObject({
  records: z.array(z.looseObject({ seq: z.number().int(), type: z.string(), at: z.number() })),
  nextAfterSeq: z.number().int().nullable(),
  hidden: z.number().int().describe('Records of this page the caller may not read, left out of `records`'),
});

/** POST /dispatch: `executed` with the tool's result, or the same refusals as /authorize. */
export const DispatchOutcomeSchema = z.union([
  z.looseObject({ status: z.literal('executed'), proposalId: Id, callId: Id, toolName: Id, result: z.unknown(), resultDigest: z.string() }),
  AuthorizeOutcomeSchema,
]);

export const HealthResponse = z.object({ status: z.literal('ok') });
export const ReadyResponse = z.union([
  z.object({ status: z.literal('ready') }),
  z.object({ status: z.literal('not_ready'), reason: z.enum(['store_unavailable', 'store_timeout']) }),
]);
