import { createHash, timingSafeEqual } from 'node:crypto';
import type { Agent } from '@countersign/core/gate';

/** Who is calling the proxy: the agent runtime (it owns its runs) and, when fixed, the principal it acts for. */
export interface ProxyIdentity {
  agent: Agent;
  /** On whose behalf the agent acts; when undefined, the request's `x-countersign-principal` names it (core checks the agent may). */
  principal?: string | undefined;
}

/** Establishes the caller from the request; undefined refuses it (401). */
export type Authenticate = (request: Request) => ProxyIdentity | undefined | Promise<ProxyIdentity | undefined>;

/** An agent runtime's Countersign bearer token, as the server's `auth.agents` lists them. */
export interface AgentToken {
  name: string;
  token: string;
  principals?: readonly string[] | undefined;
  principal?: string | undefined;
}

const BEARER = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i;
const API_KEY = /^[\x21-\x7e]+$/;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Authenticates `Authorization: Bearer <agent token>` (or, without one, `x-api-key: <agent
 * token>`, as Anthropic clients send their key) against the agents' Countersign tokens: compared over SHA-256 digests in constant time, every entry compared (timing
 * does not tell which one matched). The agent's own token, never the upstream key.
 */
export function agentTokens(agents: readonly AgentToken[]): Authenticate {
  const digests = agents.map((a) => digest(a.token));
  return (request) => {
    const authorization = request.headers.get('authorization');
    const apiKey = authorization === null ? request.headers.get('x-api-key') : null;
    const token = apiKey !== null && API_KEY.test(apiKey) ? apiKey : BEARER.exec(authorization ?? '')?.[1];
    if (token === undefined) return undefined;
    const presented = digest(token);
    let found = -1;
    for (let i = 0; i < digests.length; i++) if (timingSafeEqual(presented, digests[i]!) && found === -1) found = i;
    const entry = agents[found];
    if (entry === undefined) return undefined;
    const agent: Agent = { id: entry.name, ...(entry.principals === undefined ? {} : { principals: entry.principals }) };
    return { agent, principal: entry.principal };
  };
}
