import type { Approver } from '@countersign/core/gate';

/** An authenticated approver: who they are and how the server knows it. */
export interface ApproverIdentity {
  kind: 'approver';
  approver: Approver & { roles: readonly string[] };
  via: 'bearer' | 'session' | 'proxy';
  /**
   * What the form CSRF token is derived from: the session id for cookie sessions,
   * the user for proxy logins. Undefined for bearer tokens (no browser forms).
   */
  csrfKey?: string | undefined;
}

export interface AgentIdentity {
  kind: 'agent';
  name: string;
  /** Principals this agent may act for (exact names or `*` patterns); undefined: any. */
  principals?: readonly string[] | undefined;
}

export type Identity = AgentIdentity | ApproverIdentity;
