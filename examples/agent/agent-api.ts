import type { DispatchOutcome, ProposeOutcome } from '@countersign/core';

/** A tool call as a model returns it (OpenAI style: arguments are JSON text). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Who the agent acts for, and in which run: the same for every call of the run. */
export interface RunContext {
  runId: string;
  sessionId: string;
  principal: string;
}

/** The part of an approval request the agent looks at. */
export interface RequestStatus {
  requestId: string;
  status: 'pending' | 'approved' | 'denied' | 'revoked' | 'consumed' | 'expired';
  edited?: { requestId: string; callId: string } | undefined;
}

/** Error answers of the API: `{ error: { code, message } }`. */
export class AgentApiError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(status: number, code: string, message: string) {
    super(`${status} ${code}: ${message}`);
    this.name = 'AgentApiError';
    this.status = status;
    this.code = code;
  }
}

/**
 * The agent runtime's side of the Countersign HTTP API. The runtime records what
 * the model asked for, waits for decisions and dispatches; it never tells the
 * server what to run: dispatch names a call, and the server runs its own record.
 */
export class AgentApi {
  readonly baseUrl: string;
  readonly #token: string;

  constructor(baseUrl: string, agentToken: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#token = agentToken;
  }

  /** Records every tool call of one model response; one outcome per call, in order. */
  async propose(run: RunContext, toolCalls: ToolCall[], modelResponseRef?: string): Promise<(ProposeOutcome & { callId: string })[]> {
    const body = { ...run, toolCalls, ...(modelResponseRef === undefined ? {} : { modelResponseRef }) };
    const answer = await this.#request<{ outcomes: (ProposeOutcome & { callId: string })[] }>('POST', '/api/v1/proposals', body);
    return answer.outcomes;
  }

  /**
   * Runs a recorded call through the gate. `proposed` is the propose outcome of the
   * call (only `allowed` and `approval_required` outcomes carry a proposal id, so a
   * refused call cannot be dispatched by mistake); the run and call id ride along as
   * cross-checks. `token` is needed for calls that required approval.
   */
  dispatch(run: RunContext, proposed: { proposalId: string; callId: string }, token?: string): Promise<DispatchOutcome> {
    const body = { ...run, proposalId: proposed.proposalId, callId: proposed.callId, ...(token === undefined ? {} : { token }) };
    return this.#request('POST', '/api/v1/dispatch', body);
  }

  /** The request's status; with `waitSeconds`, a long-poll that returns as soon as it leaves pending. */
  requestStatus(requestId: string, waitSeconds = 0, signal?: AbortSignal): Promise<RequestStatus> {
    return this.#request('GET', `/api/v1/requests/${encodeURIComponent(requestId)}?wait=${waitSeconds}`, undefined, signal);
  }

  async token(requestId: string): Promise<string> {
    const answer = await this.#request<{ token: string }>('GET', `/api/v1/requests/${encodeURIComponent(requestId)}/token`);
    return answer.token;
  }

  /** Opens the request's server-sent event stream. */
  async events(requestId: string, signal?: AbortSignal): Promise<Response> {
    const response = await fetch(`${this.baseUrl}/api/v1/requests/${encodeURIComponent(requestId)}/events`, {
      headers: { authorization: `Bearer ${this.#token}`, accept: 'text/event-stream' },
      ...(signal === undefined ? {} : { signal }),
    });
    if (!response.ok) throw await apiError(response);
    return response;
  }

  /** Where a person approves or denies the request in a browser. */
  approvalPageUrl(requestId: string): string {
    return `${this.baseUrl}/requests/${encodeURIComponent(requestId)}`;
  }

  async #request<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.#token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal === undefined ? {} : { signal }),
    });
    if (!response.ok) throw await apiError(response);
    return (await response.json()) as T;
  }
}

async function apiError(response: Response): Promise<AgentApiError> {
  const text = await response.text();
  try {
    const { error } = JSON.parse(text) as { error: { code: string; message: string } };
    return new AgentApiError(response.status, error.code, error.message);
  } catch {
    return new AgentApiError(response.status, 'http_error', text.slice(0, 200));
  }
}
