import { afterAll, beforeAll, describe } from 'vitest';
import type { GateAttackAdapter } from './adapter.ts';
import { describeCallAttacks } from './call-attacks.ts';
import { describeCanonicalAttacks } from './canonical-attacks.ts';
import { describeCompletionAttacks } from './completion-attacks.ts';
import { describeRelayAttacks } from './relay-attacks.ts';
import { KitContext } from './kit-context.ts';
import { describeOneCommitAttacks } from './one-commit-attacks.ts';
import { describeStoredCallAttacks } from './stored-call-attacks.ts';
import { describeTokenAttacks } from './token-attacks.ts';

/**
 * The gate attack kit: every attack on the approval flow, run through a `GatePort`
 * against the wiring `makeAdapter` gives (see `GateAttackAdapter`). Call it from a test
 * file: `describeGateAttacks('my server', async () => myAdapter())`. Calls use fresh
 * run ids, so one adapter (and one persistent store) serves the whole suite.
 */
export function describeGateAttacks(name: string, makeAdapter: () => Promise<GateAttackAdapter>): void {
  describe(`gate attack kit: ${name}`, () => {
    let adapter: GateAttackAdapter | undefined;
    const kit = new KitContext(() => {
      if (adapter === undefined) throw new Error('attack kit: the adapter was not created');
      return adapter;
    });
    beforeAll(async () => {
      adapter = await makeAdapter();
    });
    afterAll(async () => {
      await adapter?.close?.();
    });
    describeTokenAttacks(kit);
    describeCallAttacks(kit);
    describeCanonicalAttacks(kit);
    describeStoredCallAttacks(kit);
    describeCompletionAttacks(kit);
    describeRelayAttacks(kit);
    describeOneCommitAttacks(kit);
  });
}
