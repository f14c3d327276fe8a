/**
 * Who and what the agent's calls belong to. It comes from the app server's own state
 * (its session, its authenticated user), never from the messages a client sends: a
 * client that could pick the principal could pick whose approval counts.
 */
export interface CountersignContext {
  runId: string;
  sessionId: string;
  /** On whose behalf the agent acts, e.g. `user:42`. */
  principal: string;
}
