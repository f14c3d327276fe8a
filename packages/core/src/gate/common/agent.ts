import { compileToolPattern } from '../../policy/glob.ts';

/**
 * The owner of runs recorded without an agent identity (in-process use of the gate).
 * A server maps each authenticated agent to its own id, so its agents never share
 * this one unless one is deliberately named so.
 */
export const DEFAULT_AGENT_ID = 'in-process';

/**
 * The agent runtime making a call, as authentication established it. A run belongs to
 * the agent that recorded its first call; only that agent can add calls to it, read
 * its requests, fetch its tokens and dispatch its calls.
 */
export interface Agent {
  id: string;
  /**
   * Principals this agent may act for: exact names or `*` patterns (the glob of policy
   * tool patterns). Undefined means any principal; an empty list means none.
   */
  principals?: readonly string[] | undefined;
}

export const DEFAULT_AGENT: Agent = { id: DEFAULT_AGENT_ID };

/** Whether `agent` may act for `principal`. */
export function mayActFor(agent: Agent, principal: string): boolean {
  if (agent.principals === undefined) return true;
  return agent.principals.some((pattern) => compileToolPattern(pattern)(principal));
}

/** Whether something recorded by `owner` is visible to `agent`. Not-yours reads exactly like not-found. */
export function isOwnedBy(owner: string, agent: Agent): boolean {
  return owner === agent.id;
}
