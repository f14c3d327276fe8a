import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DefinitionStore, ToolPin } from '../catalog/types.ts';
import { sha256Hex } from '../digest.ts';

export interface DefinitionStoreHarness {
  store: DefinitionStore;
  /** A second handle on the same data (another connection: a restart or a replica), if the store can have one. */
  reopen?: () => Promise<DefinitionStore>;
  cleanup?: () => Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);
// Random names, so suites can share a persistent database.
const tool = () => `tool-${randomBytes(9).toString('base64url')}`;
const digestOf = (text: string) => sha256Hex(text);

/** The storage behaviour every DefinitionStore must have (memory, SQLite, Postgres). */
export function runDefinitionStoreConformance(name: string, open: () => Promise<DefinitionStoreHarness>): void {
  describe(`DefinitionStore conformance: ${name}`, () => {
    let harness: DefinitionStoreHarness;
    beforeAll(async () => {
      harness = await open();
    });
    afterAll(async () => {
      await harness.cleanup?.();
    });

    it('a definition is kept by digest as first recorded, text unchanged', async () => {
      const text = `{"description":"\\u2028 <b>x</b> ${tool()}","name":"a"}`;
      const digest = digestOf(text);
      expect(await harness.store.getDefinitionText(digest)).toBeUndefined();
      await harness.store.recordDefinition(digest, text, T0);
      await harness.store.recordDefinition(digest, 'something else', T0 + 5);
      expect(await harness.store.getDefinitionText(digest)).toEqual({ text, firstSeenAt: T0 });
    });

    it('replacePin creates only when absent and replaces only the expected state, once', async () => {
      const name = tool();
      const first: ToolPin = { toolName: name, status: 'trusted', trustedDigest: 'a'.repeat(64), updatedAt: T0 };
      expect(await harness.store.replacePin(undefined, first)).toBe(true);
      expect(await harness.store.replacePin(undefined, { ...first, trustedDigest: 'b'.repeat(64) })).toBe(false);
      expect(await harness.store.getPin(name)).toEqual(first);
      const changed: ToolPin = { ...first, status: 'changed', pendingDigest: 'c'.repeat(64), updatedAt: T0 + 1 };
      const { toolName: _, ...expected } = first;
      const racers = await Promise.all([1, 2, 3, 4].map((i) => harness.store.replacePin(expected, { ...changed, updatedAt: T0 + i })));
      expect(racers.filter(Boolean)).toHaveLength(1);
      // A stale expectation (wrong digest, wrong time, absent vs present) changes nothing.
      const now = (await harness.store.getPin(name))!;
      expect(await harness.store.replacePin({ ...expected, trustedDigest: undefined }, first)).toBe(false);
      expect(await harness.store.replacePin({ ...expected, status: 'changed', pendingDigest: 'c'.repeat(64) }, first)).toBe(false);
      expect(await harness.store.getPin(name)).toEqual(now);
    });

    it('putPin sets a pin whatever it was; listPins lists it', async () => {
      const name = tool();
      await harness.store.putPin({ toolName: name, status: 'disabled', trustedDigest: 'a'.repeat(64), pendingDigest: 'b'.repeat(64), updatedAt: T0 });
      const pin: ToolPin = { toolName: name, status: 'trusted', trustedDigest: 'd'.repeat(64), updatedAt: T0 + 1 };
      await harness.store.putPin(pin);
      expect(await harness.store.getPin(name)).toEqual(pin);
      expect((await harness.store.listPins()).find((p) => p.toolName === name)).toEqual(pin);
      expect(await harness.store.getPin(`${name}x`)).toBeUndefined();
    });

    it('a tool stays registered to the agent that registered it first', async () => {
      const name = tool();
      const registration = { toolName: name, definitionDigest: 'a'.repeat(64), agent: 'agent-a', updatedAt: T0 };
      expect(await harness.store.register(registration)).toEqual({ ok: true });
      expect(await harness.store.register({ ...registration, definitionDigest: 'b'.repeat(64), updatedAt: T0 + 1 })).toEqual({ ok: true });
      expect(await harness.store.register({ ...registration, agent: 'agent-b', definitionDigest: 'e'.repeat(64) })).toEqual({
        ok: false,
        reason: 'registered_by_other_agent',
      });
      expect(await harness.store.getRegistration(name)).toEqual({ ...registration, definitionDigest: 'b'.repeat(64), updatedAt: T0 + 1 });
      expect((await harness.store.listRegistrations()).some((r) => r.toolName === name)).toBe(true);
    });

    it('definitions and pins are seen through another handle on the same store (restart, replica)', async (context) => {
      if (harness.reopen === undefined) return context.skip();
      const name = tool();
      const text = `{"name":"${name}"}`;
      await harness.store.recordDefinition(digestOf(text), text, T0);
      await harness.store.putPin({ toolName: name, status: 'changed', pendingDigest: digestOf(text), updatedAt: T0 });
      const other = await harness.reopen();
      expect((await other.getDefinitionText(digestOf(text)))?.text).toBe(text);
      expect((await other.getPin(name))?.status).toBe('changed');
    });
  });
}
