import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { CompleteOutcome, Grant } from '../../gate/execute/grant.ts';
import type { AuthorizeOutcome, AuthorizeRequest, GatePort } from '../../gate/common/port.ts';
import type { GateAttackAdapter } from './adapter.ts';
import { KIT_PRINCIPAL, type KitAgent } from './fixtures.ts';

/** One model tool call as the kit proposes it. */
export interface KitCall {
  runId: string;
  sessionId: string;
  principal: string;
  callId: string;
  toolName: string;
  arguments: unknown;
}

export interface ApprovedCall {
  call: KitCall;
  proposalId: string;
  requestId: string;
  token: string;
}

/** A run of a granted call, as the kit (playing the agent) performed it. */
export interface KitRun {
  proposalId: string;
  canonicalArgs: string;
}

/**
 * The agent side the kit plays against an adapter: fresh run ids for every call (so it
 * can run against a shared, persistent service), and a count of the tool runs it
 * performed, which happen only after `authorize` returned a grant.
 */
export class KitContext {
  readonly runs: KitRun[] = [];
  #adapter: () => GateAttackAdapter;

  constructor(adapter: () => GateAttackAdapter) {
    this.#adapter = adapter;
  }

  get adapter(): GateAttackAdapter {
    return this.#adapter();
  }

  port(agent: KitAgent = 'a'): GatePort {
    return this.adapter.port(agent);
  }

  call(overrides: Partial<KitCall> = {}): KitCall {
    return {
      runId: `kit-run-${randomUUID()}`,
      sessionId: 'kit-session-1',
      principal: KIT_PRINCIPAL,
      callId: `kit-call-${randomUUID().slice(0, 8)}`,
      toolName: 'kit_transfer',
      arguments: { amount: 500, to: 'alice' },
      ...overrides,
    };
  }

  /** Proposes `call` as `agent` and returns the one outcome. */
  async propose(call: KitCall, agent: KitAgent = 'a') {
    const outcomes = await this.port(agent).propose({
      runId: call.runId,
      sessionId: call.sessionId,
      principal: call.principal,
      toolCalls: [{ id: call.callId, name: call.toolName, arguments: call.arguments }],
    });
    expect(outcomes).toHaveLength(1);
    return outcomes[0]!;
  }

  /** Proposes a call that needs approval, has it approved and fetches its token. */
  async approved(overrides: Partial<KitCall> = {}, agent: KitAgent = 'a'): Promise<ApprovedCall> {
    const call = this.call(overrides);
    const proposed = await this.propose(call, agent);
    if (proposed.status !== 'approval_required') throw new Error(`attack kit: expected approval_required, got ${JSON.stringify(proposed)}`);
    await this.adapter.decide(proposed.requestId, 'approve');
    const issued = await this.port(agent).token(proposed.requestId);
    if (!issued.ok) throw new Error(`attack kit: no token: ${JSON.stringify(issued)}`);
    return { call, proposalId: proposed.proposalId, requestId: proposed.requestId, token: issued.token };
  }

  /** The authorize request an honest agent sends for `call`: the proposal id and every cross-check. */
  request(call: KitCall, proposalId: string, token?: string): AuthorizeRequest {
    return {
      proposalId,
      runId: call.runId,
      callId: call.callId,
      sessionId: call.sessionId,
      principal: call.principal,
      toolName: call.toolName,
      arguments: call.arguments,
      ...(token === undefined ? {} : { token }),
    };
  }

  /**
   * Plays the agent's tool hook: authorize, and only on a grant run the tool (counted)
   * with the grant's arguments and complete. Returns authorize's outcome.
   */
  async run(request: AuthorizeRequest, agent: KitAgent = 'a'): Promise<AuthorizeOutcome> {
    const outcome = await this.port(agent).authorize(request);
    if (outcome.status === 'authorized') {
      this.runs.push({ proposalId: outcome.grant.proposalId, canonicalArgs: outcome.grant.canonicalArgs });
      const done = await this.complete(outcome.grant, agent);
      expect(done).toMatchObject({ ok: true, duplicate: false });
    }
    return outcome;
  }

  complete(grant: Grant, agent: KitAgent = 'a', result: unknown = { ok: true, tool: grant.toolName }): Promise<CompleteOutcome> {
    return this.port(agent).complete(grant, { status: 'succeeded', result });
  }

  runsOf(proposalId: string): number {
    return this.runs.filter((r) => r.proposalId === proposalId).length;
  }
}
