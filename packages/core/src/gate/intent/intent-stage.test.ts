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
});
