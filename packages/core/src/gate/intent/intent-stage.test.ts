import { MemoryAuditLog } from '../../audit/memory-audit-log.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import { describe, expect, it } from 'vitest';
import { makeGateFixture } from '../../testing/gate-fixture.ts';
import { INTENT_TASK, runIntentConformance, scriptedMatcher } from '../../testing/intent-conformance.ts';

runIntentConformance('memory', async () => {
  const audit = new MemoryAuditLog();
  return { ledger: new MemoryLedger({ audit }), audit };
});

describe('intent stage: what the matcher is shown', () => {
  it('the pinned definition (description, parameter descriptions and types), the server each tool belongs to, and the catalogue', async () => {
    const { matcher, asked } = scriptedMatcher(() => ({ decision: 'match', score: 1, matcher: 'scripted' }));
    const f = makeGateFixture({ intent: { matcher, serverOf: (name) => (name === 'transfer' ? 'bank' : 'files') } });
    await f.gate.propose(f.call({ arguments: '{"amount":5,"to":"bob"}', task: INTENT_TASK }));
    expect(asked[0]?.tool).toEqual({ name: 'transfer', server: 'bank', description: 'Move money to a recipient', parameters: { amount: { type: 'number' }, to: { type: 'string' } } });
    expect(asked[0]?.catalogue.find((t) => t.name === 'read_file')).toEqual({ name: 'read_file', server: 'files' });
  });

  it('the assistant\'s offers the user only accepted, apart from the task; a malformed list is refused before the matcher is asked', async () => {
    const { matcher, asked } = scriptedMatcher(() => ({ decision: 'match', score: 1, matcher: 'scripted' }));
    const f = makeGateFixture({ intent: { matcher } });
    await f.gate.propose({ ...f.call({ arguments: '{"amount":5,"to":"bob"}', task: 'Move 5 to bob.' }), offered: ['Move 5 to bob.'] });
    expect(asked[0]).toMatchObject({ task: 'Move 5 to bob.', offered: ['Move 5 to bob.'] });
    await f.gate.propose(f.call({ arguments: '{"amount":5,"to":"bob"}', task: INTENT_TASK }));
    expect(asked[1]?.offered).toBeUndefined();
    const bad = await f.gate.propose({ ...f.call({ arguments: '{"amount":5,"to":"bob"}', task: INTENT_TASK }), offered: [42] as unknown as string[] });
    expect(bad).toMatchObject({ status: 'rejected', reason: 'invalid_call' });
    expect(asked).toHaveLength(2);
  });

  it('the catalogue listing is reused within catalogueTtlMs (not read per call); the called tool is always its current definition', async () => {
    let listings = 0;
    const catalogue = async () => {
      listings++;
      return [{ name: 'transfer', description: 'stale description' }, { name: 'read_file' }];
    };
    const { matcher, asked } = scriptedMatcher(() => ({ decision: 'match', score: 1, matcher: 'scripted' }));
    const f = makeGateFixture({ intent: { matcher, catalogue, catalogueTtlMs: 1000 } });
    for (let i = 0; i < 3; i++) await f.gate.propose(f.call({ arguments: '{"amount":5,"to":"bob"}', task: INTENT_TASK }));
    expect(listings).toBe(1);
    expect(asked[0]?.catalogue.filter((t) => t.name === 'transfer')).toEqual([expect.objectContaining({ description: 'Move money to a recipient' })]);
    f.clock.advance(1001);
    await f.gate.propose(f.call({ arguments: '{"amount":5,"to":"bob"}', task: INTENT_TASK }));
    expect(listings).toBe(2);
  });

  it('a failing catalogue listing fails closed and is not kept', async () => {
    let fail = true;
    const catalogue = async () => {
      if (fail) throw new Error('store down');
      return [];
    };
    const f = makeGateFixture({ intent: { matcher: scriptedMatcher(() => ({ decision: 'match', score: 1, matcher: 's' })).matcher, catalogue } });
    expect(await f.gate.propose(f.call({ toolName: 'read_file', arguments: '{}', task: INTENT_TASK }))).toMatchObject({ reason: 'intent_mismatch' });
    fail = false;
    expect(await f.gate.propose(f.call({ toolName: 'read_file', arguments: '{}', task: INTENT_TASK }))).toMatchObject({ status: 'allowed' });
  });

  it("another agent's registered tools are never in the catalogue the matcher ranks against", async () => {
    const { matcher, asked } = scriptedMatcher(() => ({ decision: 'match', score: 1, matcher: 'scripted' }));
    const f = makeGateFixture({ intent: { matcher }, trustOnFirstUse: true });
    const secret = { name: 'a__payroll_export', description: 'Exports the payroll of agent A', inputSchema: { type: 'object' } };
    expect(await f.gate.registerTools([secret], { id: 'agent-a' })).toMatchObject({ ok: true });
    await f.gate.propose(f.call({ runId: 'run-b', toolName: 'read_file', arguments: '{}', task: INTENT_TASK }), { id: 'agent-b' });
    await f.gate.propose(f.call({ runId: 'run-a', toolName: 'read_file', arguments: '{}', task: INTENT_TASK }), { id: 'agent-a' });
    const names = asked.map((a) => a.catalogue.map((t) => t.name));
    expect(names[0]).toContain('read_file');
    expect(names[0]).not.toContain('a__payroll_export');
    expect(names[1]).toContain('a__payroll_export');
  });
});
