import {
  AuthorizeBody,
  AuthorizeOutcomeSchema,
  CallStatusSchema,
  CompleteBody,
  CompleteOutcomeSchema,
  DispatchBody,
  ProposalsBody,
  ProposalsResponse,
  ProviderOutputBody,
  ProviderOutputRecorded,
  RecordedCallBody,
  RefusalReportBody,
  RefusalReportRecorded,
  RegisterToolsResponse,
  RelayCheckOutcomeSchema,
  RelayedBody,
  RequestStatusResponse,
  TokenResponse,
  ToolAdmissionBody,
  ToolAdmissionSchema,
  ToolsBody,
} from '@countersign/core/wire';
import { z } from 'zod';
import { ChallengeBody, RegisterBody, RegistrationOptionsBody, RemovalChallengeBody, RemoveBody } from '../api/approver/passkeys.ts';
import { DecisionBody, RequestStatusFilter } from '../api/schemas.ts';
import { ApprovalListResponse, ApprovalViewSchema, AuditPageResponse, DecisionResponse, DispatchOutcomeSchema } from './response-schemas.ts';

export type Auth = 'agent' | 'approver' | 'none';

/** One documented route: the zod schemas are the very ones its handler validates with or answers with. */
export interface ApiRoute {
  method: 'get' | 'post' | 'put';
  /** OpenAPI form: `{id}`, not `:id`. */
  path: string;
  summary: string;
  auth: Auth;
  body?: z.ZodType | undefined;
  query?: Record<string, { schema: z.ZodType; description: string }> | undefined;
  /** Absent: a body that is not JSON (the event stream). */
  response?: z.ZodType | undefined;
  /** `text/event-stream` instead of JSON. */
  eventStream?: boolean | undefined;
}

const Limit = z.string().regex(/^\d{1,4}$/);

const PasskeyChallengeResponse = z.object({ claims: z.record(z.string(), z.unknown()), challenge: z.string(), publicKey: z.record(z.string(), z.unknown()) });
const PasskeyRegisteredResponse = z.object({ credentialId: z.string(), label: z.string(), createdAt: z.number() });
const PasskeyRemovalChallengeResponse = PasskeyChallengeResponse.extend({ nonce: z.string() });
const PasskeyRemovedResponse = z.object({ credentialId: z.string(), removedAt: z.number() });

export const API_ROUTES: readonly ApiRoute[] = [
  { method: 'post', path: '/api/v1/proposals', summary: "Record every tool call of one model response; one outcome per call (policy's verdict)", auth: 'agent', body: ProposalsBody, response: ProposalsResponse },
  { method: 'get', path: '/api/v1/requests/{id}', summary: "An approval request's status (`?wait=` long-polls up to the server's limit)", auth: 'agent', query: { wait: { schema: z.string().regex(/^\d{1,3}$/), description: 'seconds to wait for a change' } }, response: RequestStatusResponse.and(ApprovalViewSchema) },
  { method: 'get', path: '/api/v1/requests/{id}/token', summary: 'The approval token of an approved request', auth: 'agent', response: TokenResponse },
  { method: 'get', path: '/api/v1/requests/{id}/events', summary: "Server-sent events on a request's status until it is decided", auth: 'agent', eventStream: true },
  { method: 'post', path: '/api/v1/dispatch', summary: 'Verify and consume the approval, then run a tool the service hosts', auth: 'agent', body: DispatchBody, response: DispatchOutcomeSchema },
  { method: 'post', path: '/api/v1/authorize', summary: 'Verify and consume the approval; returns a grant to run the ledger\'s call yourself', auth: 'agent', body: AuthorizeBody, response: AuthorizeOutcomeSchema },
  { method: 'post', path: '/api/v1/authorize/recorded', summary: 'Authorize a recorded call found by tool and arguments (a runtime that knows no call id)', auth: 'agent', body: RecordedCallBody, response: AuthorizeOutcomeSchema },
  { method: 'post', path: '/api/v1/complete', summary: 'Record the result digest of a call run under a grant', auth: 'agent', body: CompleteBody, response: CompleteOutcomeSchema },
  { method: 'get', path: '/api/v1/calls/{proposalId}', summary: "A recorded call's state", auth: 'agent', response: CallStatusSchema },
  { method: 'post', path: '/api/v1/runs/{runId}/relayed', summary: 'Check that tool results relayed to the model are the recorded ones (CASA check 5)', auth: 'agent', body: RelayedBody, response: RelayCheckOutcomeSchema },
  { method: 'post', path: '/api/v1/runs/{runId}/refusals', summary: 'Audit a refusal the integration made itself (a message shape it cannot check)', auth: 'agent', body: RefusalReportBody, response: RefusalReportRecorded },
  { method: 'post', path: '/api/v1/runs/{runId}/provider-outputs', summary: "Record the digest of a hosted tool's output the model's provider produced, for a call recorded as the provider's (404 no such call, 409 result_conflict)", auth: 'agent', body: ProviderOutputBody, response: ProviderOutputRecorded },
  { method: 'put', path: '/api/v1/tools', summary: 'Register the definitions of tools the agent runs itself', auth: 'agent', body: ToolsBody, response: RegisterToolsResponse },
  { method: 'post', path: '/api/v1/tools/admission', summary: "Whether a tool's current definition is trusted", auth: 'agent', body: ToolAdmissionBody, response: ToolAdmissionSchema },
  { method: 'get', path: '/api/v1/approvals', summary: 'Requests this approver may decide, newest first', auth: 'approver', query: { status: { schema: RequestStatusFilter, description: 'default pending' }, limit: { schema: Limit, description: '1-1000, default 100' } }, response: ApprovalListResponse },
  { method: 'get', path: '/api/v1/approvals/{id}', summary: 'One request as the approver sees it: the exact call, its definition and digests', auth: 'approver', response: ApprovalViewSchema },
  { method: 'post', path: '/api/v1/decisions', summary: 'Approve, deny (with a reason), approve with edited arguments, revoke, or withdraw your own approval of a request still pending (409 no_approval when you hold none, already_decided once it is no longer pending)', auth: 'approver', body: DecisionBody, response: DecisionResponse },
  { method: 'post', path: '/api/v1/passkey-challenge', summary: "What the approver's passkey must sign for one decision: the claims rebuilt from the ledger and their SHA-256 challenge (409 expired / already_decided; 403 passkey_required without an active passkey)", auth: 'approver', body: ChallengeBody, response: PasskeyChallengeResponse },
  { method: 'post', path: '/api/v1/passkeys/registration-options', summary: 'WebAuthn registration options for a new passkey of this approver; with `stepUp` (what an existing passkey must sign) when they have one', auth: 'approver', body: RegistrationOptionsBody, response: z.record(z.string(), z.unknown()) },
  { method: 'post', path: '/api/v1/passkeys', summary: "Register a passkey from the browser's registration response; a second or later one needs `stepUp`, an existing passkey's assertion (403 step_up_required / step_up_invalid)", auth: 'approver', body: RegisterBody, response: PasskeyRegisteredResponse },
  { method: 'post', path: '/api/v1/passkeys/removal-challenge', summary: "What one of the approver's passkeys must sign to remove one: a nonce bound to the credential, the claims and their SHA-256 challenge", auth: 'approver', body: RemovalChallengeBody, response: PasskeyRemovalChallengeResponse },
  { method: 'post', path: '/api/v1/passkeys/remove', summary: "Remove one of the approver's passkeys, with a step-up assertion over the removal claims (403 step_up_required / step_up_invalid)", auth: 'approver', body: RemoveBody, response: PasskeyRemovedResponse },
  { method: 'get', path: '/api/v1/audit', summary: 'A page of the hash-chained audit log: the records of calls this approver may decide and their own passkey changes (role auditor: every record)', auth: 'approver', query: { afterSeq: { schema: z.string().regex(/^\d+$/), description: 'records after this sequence number' }, limit: { schema: Limit, description: 'records per page' } }, response: AuditPageResponse },
  { method: 'get', path: '/api/v1/openapi.json', summary: 'This document', auth: 'none' },
];
