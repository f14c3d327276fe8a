import { describe, expect, it } from 'vitest';
import { depsOf } from '../internal-deps.ts';
import { MemoryDefinitionStore } from '../../catalog/memory-definition-store.ts';
import { makeGateFixture } from '../../testing/gate-fixture.ts';
import type { IntentMatcher } from '../intent/types.ts';
import { Gate } from '../gate.ts';

// propose decides without a promise when admitDefinition would answer ok without I/O (a
// code-registered tool this gate already recorded), the policy answers synchronously and
// there is no intent stage. These tests attack that shortcut: each case outside it must
// still take the full path (catalogue, definition record, pin, matcher).

const SMALL = { to: 'bob', amount: 5 };

describe('propose: the in-memory path is taken only where the full path would do nothing', () => {
  it("a code-registered tool's first call records its definition before the call is recorded", async () => {
    const definitions = new MemoryDefinitionStore();
    const f = makeGateFixture({ definitions });
    const digest = (await depsOf(f.gate).catalog.resolve('transfer'))!.definitionDigest!;
    expect(await definitions.getDefinitionText(digest)).toBeUndefined();
    expect(await f.gate.propose(f.call({ toolName: 'transfer', arguments: SMALL }))).toMatchObject({ status: 'allowed' });
    expect(await definitions.getDefinitionText(digest)).toMatchObject({ text: expect.any(String) });
  });

  it('a catalogue that is not in memory is asked on every call, and its refusal stands', async () => {
    const f = makeGateFixture();
    const deps = depsOf(f.gate);
    let asked = 0;
    const resolve = deps.catalog.resolve;
    // The same tools behind a catalogue the gate cannot read from memory (a remote registry).
    const gate = new Gate({
      definitions: new MemoryDefinitionStore(),
      ledger: deps.ledger,
      audit: deps.audit,
      policy: deps.policy,
      keyring: f.keyring,
      catalog: {
        resolve: async (name) => {
          asked++;
          const entry = await resolve(name);
          // Not vouched for: its pin decides, and there is none (no trust on first use).
          return entry === undefined ? undefined : { ...entry, vouched: false };
        },
      },
    });
    for (const callId of ['c1', 'c2']) {
      const outcome = await gate.propose(f.call({ callId, toolName: 'transfer', arguments: SMALL }));
      expect(outcome).toMatchObject({ status: 'rejected', reason: 'definition_mismatch' });
    }
    expect(asked).toBe(2);
  });

  it('with an intent stage the matcher is asked for an admitted code-registered tool, every call', async () => {
    let asked = 0;
    const matcher: IntentMatcher = {
      id: 'counting',
      match: async () => {
        asked++;
        return { decision: 'mismatch', score: 0, matcher: 'counting' };
      },
    };
    const f = makeGateFixture({ intent: { matcher } });
    for (const callId of ['c1', 'c2']) {
      const outcome = await f.gate.propose(f.call({ callId, toolName: 'transfer', arguments: SMALL, task: 'read the weather' }));
      expect(outcome).toMatchObject({ status: 'denied', reason: 'intent_mismatch' });
    }
    expect(asked).toBe(2);
  });
});
