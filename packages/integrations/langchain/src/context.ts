/**
 * Who and what the agent's calls belong to. It comes from the app server's own state
 * (its session, its authenticated user, the thread it invokes), never from a resume
 * payload or messages a client sends: a client that could pick the principal could
 * pick whose approval counts.
 */
export interface CountersignContext {
  runId: string;
  sessionId: string;
  /** On whose behalf the agent acts, e.g. `user:42`. */
  principal: string;
}

/** The part of LangChain's runtime a context resolver may read (what the app server passed to `invoke`). */
export interface RuntimeView {
  context?: unknown;
  configurable?: { thread_id?: string | undefined; [key: string]: unknown } | undefined;
}

/** A fixed context, or one read from the runtime the app server invoked the agent with. */
export type ContextSource = CountersignContext | ((runtime: RuntimeView) => CountersignContext);

export function resolveContext(source: ContextSource, runtime: RuntimeView): CountersignContext {
  const context = typeof source === 'function' ? source(runtime) : source;
  return { runId: context.runId, sessionId: context.sessionId, principal: context.principal };
}
