import type { AuthorizeOutcome, MatchingCallRequest } from '@countersign/core/gate';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { refusalResult } from './refusal.ts';

/** `_meta` keys a client (an agent runtime) uses to say which recorded model call a `tools/call` is. */
export const RUN_ID_META = 'countersign/runId';
export const CALL_ID_META = 'countersign/callId';
/** The agent's session (the LLM proxy's `x-countersign-session`, else its run id): a recorded call of another session is refused. */
export const SESSION_ID_META = 'countersign/sessionId';

/** The HTTP header an agent runtime sets on its MCP connection (and on the LLM proxy) to name its run. */
export const RUN_HEADER = 'x-countersign-run';

/** The run an HTTP request's `x-countersign-run` header names, if any. */
export function runFromHeaders(headers: Readonly<Record<string, string | string[] | undefined>> | undefined): string | undefined {
  const value = headers?.[RUN_HEADER];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** How calls are checked: `direct` (the `tools/call` is the proposal) or `recorded` (checks 3 and 4). */
export type CallMode = 'direct' | 'recorded';

export interface RecordedSettings {
  mode: CallMode;
  /** The run whose recorded calls a `tools/call` must match (recorded mode); a client's `_meta` run must equal it. */
  runId?: string | undefined;
  /**
   * The agent's session, when the gateway is configured with it (recorded mode): every call
   * must be a recorded call of that session, and a client's `_meta` session must equal it.
   */
  sessionId?: string | undefined;
  authorizeMatchingCall(request: MatchingCallRequest): Promise<AuthorizeOutcome>;
}

/** Which recorded call a `tools/call` claims to be; undefined: a direct-mode call. */
export type RecordedTarget = { ok: true; runId: string; callId?: string | undefined; sessionId?: string | undefined } | { ok: false; refusal: CallToolResult } | undefined;

/**
 * The run (and call id) a call must match. A client naming a run always gets checks 3 and
 * 4, even on a direct-mode gateway (it can only tighten); on a recorded-mode gateway a call
 * with no run, or another run than the configured one, is refused: leaving `_meta` out
 * must not turn the checks off. `headerRun`: the run of the HTTP request's `x-countersign-run`.
 */
export function recordedTarget(settings: RecordedSettings, toolName: string, meta: unknown, headerRun?: string): RecordedTarget {
  const fields = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
  // The x-countersign-run header (HTTP clients) names the run like _meta does; the two must agree.
  if (headerRun !== undefined && fields[RUN_ID_META] !== undefined && fields[RUN_ID_META] !== headerRun) {
    return { ok: false, refusal: refusalResult({ reason: 'run_mismatch', message: `the ${RUN_HEADER} header and _meta name different runs`, toolName }) };
  }
  const runMeta = fields[RUN_ID_META] ?? headerRun;
  const callMeta = fields[CALL_ID_META];
  const sessionMeta = fields[SESSION_ID_META];
  const bad = (key: string) => ({ ok: false as const, refusal: refusalResult({ reason: 'invalid_meta', message: `_meta["${key}"] must be a non-empty string`, toolName }) });
  if (runMeta !== undefined && (typeof runMeta !== 'string' || runMeta === '')) return bad(RUN_ID_META);
  if (callMeta !== undefined && (typeof callMeta !== 'string' || callMeta === '')) return bad(CALL_ID_META);
  if (sessionMeta !== undefined && (typeof sessionMeta !== 'string' || sessionMeta === '')) return bad(SESSION_ID_META);
  const configuredSession = settings.mode === 'recorded' ? settings.sessionId : undefined;
  if (configuredSession !== undefined && sessionMeta !== undefined && sessionMeta !== configuredSession) {
    return { ok: false, refusal: refusalResult({ reason: 'session_mismatch', message: 'this gateway checks calls against another session', toolName }) };
  }
  if (settings.runId !== undefined && runMeta !== undefined && runMeta !== settings.runId && settings.mode === 'recorded') {
    return { ok: false, refusal: refusalResult({ reason: 'run_mismatch', message: 'this gateway checks calls against another run', toolName }) };
  }
  const runId = (runMeta as string | undefined) ?? (settings.mode === 'recorded' ? settings.runId : undefined);
  if (runId === undefined) {
    if (settings.mode === 'direct' && callMeta === undefined) return undefined;
    return { ok: false, refusal: refusalResult({ reason: 'unknown_call', message: 'this gateway runs only recorded model calls, and this call names no run', toolName }) };
  }
  // The session, when known, is cross-checked against the recorded call's like the run, tool and arguments.
  const sessionId = (sessionMeta as string | undefined) ?? configuredSession;
  return { ok: true, runId, callId: callMeta as string | undefined, ...(sessionId === undefined ? {} : { sessionId }) };
}
