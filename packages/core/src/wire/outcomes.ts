import { z } from 'zod';
import { GrantSchema, Id } from './requests.ts';

/*
 * Response bodies, parsed by `@countersign/client`. Unknown fields are stripped (a newer
 * server may add some), but every status and reason is a closed list: an answer the
 * client cannot type is a `bad_response`, never a half-read outcome.
 */

const Message = z.string();
const Digest = z.string().max(256);
const Time = z.number();

export const TokenRejectionSchema = z.enum([
  'missing',
  'malformed',
  'unsupported_format',
  'unknown_key',
  'algorithm_mismatch',
  'bad_signature',
  'expired',
  'not_yet_valid',
  'run_mismatch',
  'session_mismatch',
  'call_mismatch',
  'tool_mismatch',
  'definition_mismatch',
  'args_mismatch',
  'principal_mismatch',
]);

export const NotApprovedReasonSchema = z.union([
  TokenRejectionSchema,
  z.enum([
    'unknown_call',
    'already_consumed',
    'approval_pending',
    'approval_revoked',
    'approval_edited',
    'token_mismatch',
    'invalid_arguments',
    'ledger_integrity',
    'store_unavailable',
    'outcome_unknown',
  ]),
]);

export const DeniedReasonSchema = z.enum([
  'policy_deny',
  'unclassified_tool',
  'policy_error',
  'unknown_verdict',
  'unknown_tool',
  'approval_denied',
  'principal_not_allowed',
  'intent_mismatch',
  'provider_executed',
]);

const ApprovalRequired = z.object({ status: z.literal('approval_required'), proposalId: Id, requestId: Id, expiresAt: Time });
const NotApproved = z.object({ status: z.literal('not_approved'), reason: NotApprovedReasonSchema, message: Message, proposalId: Id.optional() });
const Denied = z.object({ status: z.literal('denied'), reason: DeniedReasonSchema, message: Message, proposalId: Id.optional() });

export const ProposeOutcomeSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('allowed'), proposalId: Id, callId: Id, argsDigest: Digest, grant: GrantSchema.optional() }),
  ApprovalRequired.extend({ callId: Id, argsDigest: Digest, edited: z.object({ proposalId: Id, requestId: Id, callId: Id }).optional() }),
  Denied,
  z.object({
    status: z.literal('rejected'),
    reason: z.enum([
      'invalid_arguments',
      'call_conflict',
      'invalid_call',
      'store_unavailable',
      'principal_not_allowed',
      'run_owned_by_other_agent',
      'definition_mismatch',
      'outcome_unknown',
    ]),
    message: Message,
    reviewRequestId: Id.optional(),
  }),
]);

/** POST /proposals: one outcome per call, in order, each with the call id it answers. */
export const ProposalsResponse = z.object({ outcomes: z.array(ProposeOutcomeSchema.and(z.object({ callId: Id }))) });

export const AuthorizeOutcomeSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('authorized'), grant: GrantSchema }),
  ApprovalRequired,
  NotApproved,
  Denied,
]);

export const CompleteOutcomeSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), proposalId: Id, resultDigest: Digest, duplicate: z.boolean() }),
  z.object({
    ok: z.literal(false),
    reason: z.enum(['unknown_grant', 'grant_mismatch', 'not_dispatched', 'result_conflict', 'invalid_completion', 'store_unavailable', 'outcome_unknown']),
    message: Message,
  }),
]);

/** GET /calls/:proposalId. */
export const CallStatusSchema = z.object({
  proposalId: Id,
  runId: Id,
  callId: Id,
  toolName: Id,
  argsDigest: Digest,
  state: z.enum(['proposed', 'dispatched', 'succeeded', 'failed']),
  request: z.object({ requestId: Id, status: z.string().max(64), expiresAt: Time }).optional(),
  dispatchedAt: Time.optional(),
  resultDigest: Digest.optional(),
  completedAt: Time.optional(),
});

/** GET /requests/:id (the part of the approval view a waiting agent reads). */
export const RequestStatusResponse = z.object({
  requestId: Id,
  status: z.enum(['pending', 'approved', 'denied', 'revoked', 'consumed', 'expired', 'edited']),
  expiresAt: Time,
  /** For `edited`: the call to run instead (read from the server's ledger, never from a client). */
  edited: z.object({ requestId: Id, proposalId: Id, callId: Id.optional() }).optional(),
});

/** GET /requests/:id/token. */
export const TokenResponse = z.object({ token: z.string().min(1).max(8192), requestId: Id, expiresAt: Time });

/** Every error answer of the API. */
export const ErrorResponse = z.object({
  error: z.object({ code: z.string().max(64), message: z.string(), status: z.string().max(64).optional() }),
});

/** PUT /tools: each registered tool with the digest of the definition now recorded for it. */
export const RegisterToolsResponse = z.object({
  tools: z.array(z.object({ name: Id, definitionDigest: z.string().regex(/^[0-9a-f]{64}$/) })).max(256),
});

/** POST /tools/admission: the tool's admission (`ToolAdmission`); another agent's tool is a 404. */
export const ToolAdmissionSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), toolName: Id, definitionDigest: Digest.optional() }),
  z.object({
    ok: z.literal(false),
    toolName: Id,
    reason: z.enum(['unknown_tool', 'definition_mismatch']),
    message: Message,
    reviewRequestId: Id.optional(),
  }),
]);

/** POST /runs/:runId/relayed: the check's answer (`RelayCheckOutcome`); `invalid_request` and `store_unavailable` come as HTTP errors. */
export const RelayCheckOutcomeSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), checked: z.number().int().nonnegative() }),
  z.object({
    ok: z.literal(false),
    reason: z.literal('relay_refused'),
    message: Message,
    failures: z.array(
      z.object({
        callId: Id,
        reason: z.enum(['unknown_call', 'not_executed', 'result_mismatch']),
        message: Message,
        proposalId: Id.optional(),
      }),
    ),
  }),
]);
