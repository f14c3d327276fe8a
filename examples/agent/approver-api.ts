/** An approval request as the approver API returns it: the exact recorded call. */
export interface ApprovalView {
  requestId: string;
  status: string;
  expiresAt: number;
  approvals: number;
  requiredApprovals: number;
  ruleId?: string | undefined;
  call: { toolName: string; canonicalArguments: string; argsDigest: string; principal: string; runId: string; callId: string };
}

/**
 * The approver's side of the API, with a bearer token. The decision body carries
 * only the request id and the choice: who decides comes from the token, and what
 * runs is the server's record of the call.
 */
export class ApproverApi {
  readonly baseUrl: string;
  readonly #token: string;

  constructor(baseUrl: string, approverToken: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#token = approverToken;
  }

  async pending(): Promise<ApprovalView[]> {
    return (await this.#request<{ approvals: ApprovalView[] }>('GET', '/api/v1/approvals')).approvals;
  }

  get(requestId: string): Promise<ApprovalView> {
    return this.#request('GET', `/api/v1/approvals/${encodeURIComponent(requestId)}`);
  }

  decide(requestId: string, decision: 'approve' | 'deny', reason?: string): Promise<{ request: ApprovalView | null }> {
    return this.#request('POST', '/api/v1/decisions', { requestId, decision, ...(reason === undefined ? {} : { reason }) });
  }

  /** Approve-with-edits: the approver's arguments become a new call, approved as its own; the original never runs. */
  edit(requestId: string, editedArguments: unknown, reason?: string): Promise<{ request: ApprovalView | null; editedRequest?: ApprovalView }> {
    return this.#request('POST', '/api/v1/decisions', { requestId, decision: 'approve', editedArguments, ...(reason === undefined ? {} : { reason }) });
  }

  async #request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.#token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }
}
