import { MemoryAuditLog, MemoryLedger, type LedgerStore } from '@countersign/core';
import { makeGateFixture } from '@countersign/core/testing';
import { expect, it } from 'vitest';
import { linkedPair } from '@countersign/server/testing';

/**
 * A memory ledger whose `write` commits and then throws (the reply to COMMIT lost), and
 * which then fails every call until `healed` (nothing can be read back).
 */
function losingTheStore(write: 'recordProposal' | 'recordResult') {
  const audit = new MemoryAuditLog();
  const real = new MemoryLedger({ audit });
  const state = { armed: false, down: false };
  const ledger = new Proxy(real, {
    get: (target, property) => {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (state.down) throw new Error('connection terminated');
        const outcome = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (state.armed && property === write) {
          state.armed = false;
          state.down = true;
          throw new Error('connection terminated (after COMMIT)');
        }
        return outcome;
      };
    },
  }) as LedgerStore;
  return { f: makeGateFixture({ ledger, audit }), state };
}

const response = { runId: 'run-lost', sessionId: 's', principal: 'user:1', toolCalls: [{ id: 'c-1', name: 'read_file', arguments: { path: '/a' } }] };

it('a proposal that may have been recorded reaches the client as outcome_unknown, and proposing again answers it as recorded', async () => {
  const { f, state } = losingTheStore('recordProposal');
  const { client, close } = linkedPair({ gate: f.gate });
  try {
    state.armed = true;
    expect(await client.propose(response)).toMatchObject([{ status: 'rejected', reason: 'outcome_unknown' }]);
    state.down = false;
    expect(await client.propose(response)).toMatchObject([{ status: 'allowed', callId: 'c-1' }]);
  } finally {
    await close();
  }
});

it('a result that may have been recorded reaches the client as outcome_unknown, and completing again answers duplicate', async () => {
  const { f, state } = losingTheStore('recordResult');
  const { client, close } = linkedPair({ gate: f.gate });
  try {
    const [proposed] = await client.propose(response);
    if (proposed?.status !== 'allowed') throw new Error(JSON.stringify(proposed));
    const authorized = await client.authorize({ proposalId: proposed.proposalId });
    if (authorized.status !== 'authorized') throw new Error(JSON.stringify(authorized));
    state.armed = true;
    expect(await client.complete(authorized.grant, { status: 'succeeded', result: { content: 'a' } })).toMatchObject({ ok: false, reason: 'outcome_unknown' });
    state.down = false;
    expect(await client.complete(authorized.grant, { status: 'succeeded', result: { content: 'a' } })).toMatchObject({ ok: true, duplicate: true });
  } finally {
    await close();
  }
});
