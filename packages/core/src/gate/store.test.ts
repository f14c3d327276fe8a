import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import { MemoryLedger } from '../ledger/memory-ledger.ts';
import { loadPolicy } from '../policy/load.ts';
import { FIXTURE_POLICY_YAML, FIXTURE_SECRET } from '../testing/gate-fixture.ts';
import { hmacKey, Keyring } from '../token/keyring.ts';
import { createGate } from './create-gate.ts';
import { Gate } from './gate.ts';
import { memoryStore } from './store.ts';

const policy = loadPolicy(FIXTURE_POLICY_YAML, 'yaml');
const keyring = new Keyring([hmacKey('k1', FIXTURE_SECRET)]);
const DEFINITION = { name: 'lookup', description: 'Look a word up', inputSchema: { type: 'object' } };

describe('the gate takes its store whole', () => {
  // A gate on a shared ledger whose pins silently lived in this process's memory would
  // trust a definition on one replica that another replica never saw pinned.
  it('a gate without a definition store is refused, not given one in memory', () => {
    const audit = new MemoryAuditLog();
    // @ts-expect-error definitions is required
    expect(() => new Gate({ ledger: new MemoryLedger({ audit }), audit, policy, keyring })).toThrow(TypeError);
  });

  it("createGate keeps an agent's registered definition in the store it was given", async () => {
    const store = memoryStore();
    const gate = createGate({ store, policy, keyring, trustOnFirstUse: true });
    const registered = await gate.registerTools([DEFINITION], { id: 'agent-a' });
    expect(registered).toMatchObject({ ok: true });
    const digest = registered.ok ? registered.tools[0]?.definitionDigest : undefined;
    expect(digest).toBeDefined();
    expect(await store.definitions.getRegistration('lookup')).toMatchObject({ agent: 'agent-a' });
  });
});
