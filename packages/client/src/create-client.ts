import type { AuthorizeOutcome, AuthorizeRequest, CallStatusResult, CompleteOutcome, Completion, GatePort, Grant, ModelResponse, ProposeOutcome, TokenResult, ToolDefinition } from '@countersign/core';
import type { CheckRelayedRequest, MatchingCallRequest, ProviderOutputOutcome, ProviderOutputReport, RefusalReport, RefusalReportOutcome, RegisterToolsOutcome, RelayCheckOutcome, ToolAdmission } from '@countersign/core/gate';
import {
  AuthorizeBody,
  AuthorizeOutcomeSchema,
  CallStatusSchema,
  CompleteBody,
  CompleteOutcomeSchema,
  ProposalsResponse,
  ProviderOutputBody,
  ProviderOutputRecorded,
  RecordedCallBody,
  RefusalReportBody,
  RefusalReportRecorded,
  RegisterToolsResponse,
  RelayCheckOutcomeSchema,
  RelayedBody,
  TokenResponse,
  ToolAdmissionBody,
  ToolAdmissionSchema,
  ToolsBody,
} from '@countersign/core/wire';
import { CountersignClientError } from './client-error.ts';
import { type FetchLike, type HttpOptions, parseBody, send } from './http.ts';
import { admissionRefused, authorizeRefused, completeRefused, proposeRefused, providerOutputRefused, readRefused, registerRefused, relayRefused, reportRefused } from './refusals.ts';
import { waitForDecision } from './wait-for-decision.ts';

export interface ClientOptions {
  /** The approval service, e.g. `http://127.0.0.1:8787` (the API lives under `/api/v1`). */
  baseUrl: string;
  /** The agent's bearer token. */
  token: string;
  /** Default: the global `fetch`. Tests pass an app's `fetch` to skip the network. */
  fetch?: FetchLike | undefined;
  /** Per-attempt timeout in ms (long-polls add their wait). Default 30000. */
  timeoutMs?: number | undefined;
  /** Further attempts for idempotent requests after a network error, timeout or 5xx. Default 2. */
  retries?: number | undefined;
  /** Delay before the first retry; doubles with each. Default 200 ms. */
  retryDelayMs?: number | undefined;
  /** Answers larger than this are refused (`bad_response`). Default 16 MiB. */
  maxResponseBytes?: number | undefined;
}

/** A `GatePort` over HTTP, plus where a person decides a request. */
export interface CountersignClient extends GatePort {
  readonly baseUrl: string;
  /** The approval page of a request, for a person to open. */
  approvalPageUrl(requestId: string): string;
  /**
   * Declares the definitions of the tools this agent runs itself (PUT /api/v1/tools), so
   * policy, the approval page and pinning know them. Registering trusts nothing: a new or
   * changed definition is refused (`definition_mismatch`, with a review request id) until
   * a person approves it. Not part of `GatePort`: an in-process gate's tools are its own.
   */
  registerTools(definitions: readonly ToolDefinition[]): Promise<RegisterToolsOutcome>;
  /**
   * Whether this agent's registered tool may be shown and called now (POST
   * /api/v1/tools/admission): what an MCP gateway asks for each tool it lists. A tool of
   * another agent, or none, is `unknown_tool`.
   */
  admitTool(toolName: string): Promise<ToolAdmission>;
  /**
   * Checks 3 and 4 (POST /api/v1/authorize/recorded): authorizes the recorded model call
   * of this agent's run that the call about to be made claims to be. Sent once, never
   * retried, like `authorize`.
   */
  authorizeMatchingCall(request: MatchingCallRequest): Promise<AuthorizeOutcome>;
}

/**
 * The gate port over the approval service's HTTP API, for an agent running its own
 * tools: `propose` → `waitForDecision` → `token` → `authorize` → run → `complete`.
 *
 * Refusals come back as outcomes, exactly as from the in-process gate; transport
 * failures throw `CountersignClientError`. Every answer is parsed with the API's
 * schemas before it is returned.
 *
 * Retries: reads, `propose` (the same call proposed twice is one call) and `complete`
 * (idempotent per grant) are retried on network errors, timeouts and 5xx answers.
 * `authorize` is sent exactly once: it consumes the approval, so a lost answer
 * (`network`/`timeout`/`server_error`) means "maybe authorized". Read
 * `callStatus(proposalId)`: `dispatched` means the approval is spent and the call
 * must be treated as possibly run (at most once), `proposed` that it was not consumed.
 * A `propose` with `authorizeAllowed` is retried too: a retry after a lost answer finds the
 * call recorded (and consumed) and answers `allowed` without a grant, so the grant is never
 * handed out twice; authorizing that call then answers `already_consumed` (propose it again
 * under a new call id to run it, as the MCP gateway does).
 */
export function createClient(options: ClientOptions): CountersignClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const http: HttpOptions = {
    baseUrl,
    token: options.token,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    timeoutMs: options.timeoutMs ?? 30_000,
    retries: Math.max(0, options.retries ?? 2),
    retryDelayMs: options.retryDelayMs ?? 200,
    maxResponseBytes: options.maxResponseBytes ?? 16 * 1024 * 1024,
  };
  const id = (value: string) => encodeURIComponent(value);

  return {
    baseUrl,
    approvalPageUrl: (requestId) => `${baseUrl}/requests/${id(requestId)}`,

    async propose(response: ModelResponse): Promise<ProposeOutcome[]> {
      if (response.toolCalls.length === 0) return [];
      const body = {
        ...response,
        toolCalls: response.toolCalls.map(({ id, name, arguments: args, context, executedBy }) => ({
          id,
          name,
          arguments: args,
          ...(context === undefined ? {} : { context }),
          // A hosted tool the provider ran: the service must know, so it never authorizes the call.
          ...(executedBy === undefined ? {} : { executedBy }),
        })),
      };
      const answer = await send(http, { method: 'POST', path: '/api/v1/proposals', body: withoutUndefined(body), idempotent: true });
      if (!answer.ok) return proposeRefused(response, answer);
      const { outcomes } = parseBody(ProposalsResponse, answer);
      if (outcomes.length !== response.toolCalls.length) {
        throw new CountersignClientError('bad_response', `${outcomes.length} outcomes for ${response.toolCalls.length} calls`, { httpStatus: answer.status });
      }
      return outcomes;
    },

    async registerTools(definitions: readonly ToolDefinition[]): Promise<RegisterToolsOutcome> {
      const checked = ToolsBody.safeParse({ tools: jsonCopy(definitions) });
      if (!checked.success) {
        const issue = checked.error.issues[0];
        return { ok: false, reason: 'invalid_definition', message: `${issue?.path.map(String).join('.') || 'tools'}: ${issue?.message ?? 'invalid'}` };
      }
      // Idempotent: the same definitions registered twice are one registration.
      const answer = await send(http, { method: 'PUT', path: '/api/v1/tools', body: checked.data, idempotent: true });
      if (!answer.ok) return registerRefused(answer);
      return { ok: true, tools: parseBody(RegisterToolsResponse, answer).tools };
    },

    async admitTool(toolName: string): Promise<ToolAdmission> {
      const checked = ToolAdmissionBody.safeParse({ toolName });
      if (!checked.success) return { ok: false, toolName, reason: 'unknown_tool', message: 'not a tool name' };
      // Not idempotent in effect (a changed definition opens its review once), but asking twice is harmless: retried.
      const answer = await send(http, { method: 'POST', path: '/api/v1/tools/admission', body: checked.data, idempotent: true });
      if (!answer.ok) return admissionRefused(toolName, answer);
      return parseBody(ToolAdmissionSchema, answer);
    },

    async authorizeMatchingCall(request: MatchingCallRequest): Promise<AuthorizeOutcome> {
      const checked = RecordedCallBody.safeParse(withoutUndefined(jsonCopy(request) ?? {}));
      if (!checked.success) {
        const where = checked.error.issues[0]?.path.map(String).join('.') ?? 'request';
        return { status: 'not_approved', reason: where === 'arguments' ? 'invalid_arguments' : 'malformed', message: `${where}: ${checked.error.issues[0]?.message ?? 'invalid'}` };
      }
      // Never retried: it consumes the approval (see authorize).
      const answer = await send(http, { method: 'POST', path: '/api/v1/authorize/recorded', body: checked.data, idempotent: false });
      if (!answer.ok) return authorizeRefused(undefined, answer);
      return parseBody(AuthorizeOutcomeSchema, answer);
    },

    async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
      const checked = AuthorizeBody.safeParse(withoutUndefined(request));
      if (!checked.success) {
        const where = checked.error.issues[0]?.path.map(String).join('.') ?? 'request';
        const reason = where === 'arguments' ? 'invalid_arguments' : 'malformed';
        return { status: 'not_approved', reason, message: `${where}: ${checked.error.issues[0]?.message ?? 'invalid'}`, proposalId: request.proposalId };
      }
      // Never retried: see the note above on a lost answer.
      const answer = await send(http, { method: 'POST', path: '/api/v1/authorize', body: checked.data, idempotent: false });
      if (!answer.ok) return authorizeRefused(request.proposalId, answer);
      return parseBody(AuthorizeOutcomeSchema, answer);
    },

    async complete(grant: Grant, completion: Completion): Promise<CompleteOutcome> {
      const body = { grant: withoutUndefined(grant), completion: jsonCopy(completion) };
      const checked = CompleteBody.safeParse(body);
      if (!checked.success || body.completion === undefined) {
        const grantIssue = checked.error?.issues.some((issue) => issue.path[0] === 'grant') ?? false;
        const message = checked.error?.issues[0]?.message ?? 'the result is not JSON';
        return grantIssue ? { ok: false, reason: 'grant_mismatch', message: `the grant is not one authorize issued: ${message}` } : { ok: false, reason: 'invalid_completion', message };
      }
      const answer = await send(http, { method: 'POST', path: '/api/v1/complete', body: checked.data, idempotent: true });
      if (!answer.ok) return completeRefused(answer);
      return parseBody(CompleteOutcomeSchema, answer);
    },

    waitForDecision: (requestId, waitOptions) => waitForDecision(http, requestId, waitOptions ?? {}),

    async token(requestId: string): Promise<TokenResult> {
      const answer = await send(http, { method: 'GET', path: `/api/v1/requests/${id(requestId)}/token`, idempotent: true });
      if (answer.ok) return { ok: true, ...parseBody(TokenResponse, answer) };
      if (answer.status === 409 && answer.code === 'not_approved') {
        return { ok: false, reason: 'not_approved', status: answer.requestStatus, message: answer.message };
      }
      return readRefused(answer);
    },

    async callStatus(proposalId: string): Promise<CallStatusResult> {
      const answer = await send(http, { method: 'GET', path: `/api/v1/calls/${id(proposalId)}`, idempotent: true });
      if (!answer.ok) return readRefused(answer);
      return { ok: true, call: parseBody(CallStatusSchema, answer) };
    },

    async checkRelayed(request: CheckRelayedRequest): Promise<RelayCheckOutcome> {
      if (typeof request?.runId !== 'string' || request.runId.length === 0) return { ok: false, reason: 'invalid_request', message: 'runId must be a non-empty string' };
      const checked = RelayedBody.safeParse(jsonCopy({ toolMessages: request.toolMessages }));
      if (!checked.success) {
        const issue = checked.error.issues[0];
        return { ok: false, reason: 'invalid_request', message: `${issue?.path.map(String).join('.') || 'toolMessages'}: ${issue?.message ?? 'invalid'}` };
      }
      // Retried like a read: it changes no call; a retried refusal is audited again.
      const answer = await send(http, { method: 'POST', path: `/api/v1/runs/${id(request.runId)}/relayed`, body: checked.data, idempotent: true });
      if (!answer.ok) return relayRefused(answer);
      return parseBody(RelayCheckOutcomeSchema, answer) as RelayCheckOutcome;
    },

    async reportRefusal(report: RefusalReport): Promise<RefusalReportOutcome> {
      if (typeof report?.runId !== 'string' || report.runId.length === 0) return { ok: false, reason: 'invalid_request', message: 'runId must be a non-empty string' };
      const { runId, ...rest } = report;
      const checked = RefusalReportBody.safeParse(withoutUndefined(rest));
      if (!checked.success) {
        const issue = checked.error.issues[0];
        return { ok: false, reason: 'invalid_request', message: `${issue?.path.map(String).join('.') || 'report'}: ${issue?.message ?? 'invalid'}` };
      }
      // Not retried: each attempt that arrives is one more audit record.
      const answer = await send(http, { method: 'POST', path: `/api/v1/runs/${id(runId)}/refusals`, body: checked.data, idempotent: false });
      if (!answer.ok) return reportRefused(answer);
      parseBody(RefusalReportRecorded, answer);
      return { ok: true };
    },

    async recordProviderOutput(report: ProviderOutputReport): Promise<ProviderOutputOutcome> {
      if (typeof report?.runId !== 'string' || report.runId.length === 0) return { ok: false, reason: 'invalid_request', message: 'runId must be a non-empty string' };
      const checked = ProviderOutputBody.safeParse({ callId: report.callId, outputDigest: report.outputDigest });
      if (!checked.success) {
        const issue = checked.error.issues[0];
        return { ok: false, reason: 'invalid_request', message: `${issue?.path.map(String).join('.') || 'report'}: ${issue?.message ?? 'invalid'}` };
      }
      // Retried: the same digest again is answered duplicate, never recorded twice.
      const answer = await send(http, { method: 'POST', path: `/api/v1/runs/${id(report.runId)}/provider-outputs`, body: checked.data, idempotent: true });
      if (!answer.ok) return providerOutputRefused(answer);
      return parseBody(ProviderOutputRecorded, answer);
    },
  };
}

/** Drops `undefined` members, which strict schemas (and JSON) do not carry. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}

/** The value as JSON will carry it; undefined when it cannot be sent as JSON (a BigInt, a cycle). */
function jsonCopy<T>(value: T): T | undefined {
  try {
    return JSON.parse(JSON.stringify(value)) as T;
  } catch {
    return undefined;
  }
}
