import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENESIS_HASH, hashRecord } from '../audit/chain.ts';
import type { AuditEvent, AuditLog, AuditRecord } from '../audit/types.ts';
import { verifyChain } from '../audit/verify-chain.ts';
import { sha256Hex } from '../digest.ts';

export interface AuditHarness {
  /** A fresh, empty log: seq numbers in this suite are absolute. */
  log: AuditLog;
  /** Called after each test. */
  cleanup?: () => Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);

function event(i: number, overrides: Partial<AuditEvent> = {}): AuditEvent {
  return { type: 'dispatch', at: T0 + i, runId: 'run-1', callId: `call-${i}`, actor: 'system', ...overrides };
}

/**
 * The behaviour every `AuditLog` backend must have. `makeHarness` is called before
 * each test and must return an empty log (a new file, a new schema...).
 */
export function runAuditConformance(name: string, makeHarness: () => Promise<AuditHarness>): void {
  describe(`AuditLog conformance: ${name}`, () => {
    let harness: AuditHarness | undefined;
    let log: AuditLog;
    beforeEach(async () => {
      harness = await makeHarness();
      log = harness.log;
    });
    afterEach(async () => {
      await harness?.cleanup?.();
      harness = undefined;
    });

    it('starts empty', async () => {
      expect(await log.head()).toBeUndefined();
      expect(await log.read()).toEqual([]);
    });

    it('append returns records with seq 1..n, each linked to the previous hash', async () => {
      const records: AuditRecord[] = [];
      for (let i = 0; i < 5; i++) records.push(await log.append(event(i)));
      expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(records[0]?.prevHash).toBe(GENESIS_HASH);
      for (let i = 1; i < records.length; i++) expect(records[i]?.prevHash).toBe(records[i - 1]?.hash);
      for (const r of records) expect(r.hash).toBe(hashRecord(r.prevHash, r.seq, r));
      expect(await log.head()).toEqual({ seq: 5, hash: records[4]?.hash });
    });

    it('read honours afterSeq and limit, ascending, and returns what append returned', async () => {
      const appended: AuditRecord[] = [];
      for (let i = 0; i < 10; i++) appended.push(await log.append(event(i)));
      expect(await log.read()).toEqual(appended);
      expect((await log.read({ afterSeq: 3 })).map((r) => r.seq)).toEqual([4, 5, 6, 7, 8, 9, 10]);
      expect((await log.read({ afterSeq: 3, limit: 2 })).map((r) => r.seq)).toEqual([4, 5]);
      expect((await log.read({ limit: 3 })).map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(await log.read({ afterSeq: 10 })).toEqual([]);
      expect(await log.read({ afterSeq: 9 })).toEqual([appended[9]]);
      expect(await log.read({ limit: 0 })).toEqual([]);
    });

    it('refuses negative or fractional read options', async () => {
      await log.append(event(0));
      await expect(log.read({ afterSeq: -1 })).rejects.toThrow();
      await expect(log.read({ limit: -1 })).rejects.toThrow();
      await expect(log.read({ afterSeq: 0.5 })).rejects.toThrow();
    });

    it('200 concurrent appends form one valid chain', async () => {
      const appended = await Promise.all(Array.from({ length: 200 }, (_, i) => log.append(event(i))));
      expect(new Set(appended.map((r) => r.seq)).size).toBe(200);
      expect(Math.min(...appended.map((r) => r.seq))).toBe(1);
      expect(Math.max(...appended.map((r) => r.seq))).toBe(200);
      const stored = await log.read();
      expect(stored).toHaveLength(200);
      const head = await log.head();
      expect(head?.seq).toBe(200);
      expect(verifyChain(stored, { anchor: head! })).toMatchObject({ ok: true, count: 200 });
      const bySeq = new Map(stored.map((r) => [r.seq, r]));
      for (const r of appended) expect(bySeq.get(r.seq)).toEqual(r);
    });

    it('stored records verify, and an edited copy does not', async () => {
      for (let i = 0; i < 20; i++) await log.append(event(i, { reason: i % 2 === 0 ? 'even' : undefined }));
      const stored = await log.read();
      expect(verifyChain(stored, { anchor: (await log.head())! })).toMatchObject({ ok: true, count: 20 });
      const edited = stored.map((r) => (r.seq === 7 ? { ...r, callId: 'call-x' } : r));
      expect(verifyChain(edited)).toMatchObject({ ok: false, reason: 'hash_mismatch', seq: 7 });
    });

    it('fields round-trip exactly (unicode, nested detail, numbers)', async () => {
      const text = 'é 😀 \u0000 "quoted" \\ <script> \u202e ﷽ \n\t';
      const detail = {
        text,
        nested: { list: [1, -2.5, 0.1, 1e21, 2 ** 53 - 1, -1e-7, true, false, null, 'x'], empty: {} },
        emptyList: [],
        'key with spaces/é': 'v',
      };
      const full: AuditEvent = {
        type: 'decision',
        at: T0 + 123,
        runId: `run ${text}`,
        sessionId: 'session-😀',
        callId: 'call-1',
        proposalId: 'prop-1',
        requestId: 'req-1',
        toolName: 'tools/transfer',
        argsDigest: sha256Hex('{}'),
        actor: 'approver:ä',
        reason: 'looks right',
        detail,
      };
      const appended = await log.append(full);
      const [stored] = await log.read();
      expect(stored).toStrictEqual(appended);
      expect(stored).toStrictEqual({ ...full, seq: 1, prevHash: GENESIS_HASH, hash: appended.hash });
      expect(stored?.hash).toBe(hashRecord(GENESIS_HASH, 1, full));
      expect(Object.keys(stored?.detail ?? {})).toEqual(Object.keys(detail));
    });

    it('undefined optional fields stay absent', async () => {
      const appended = await log.append({ type: 'proposal', at: T0, runId: undefined, detail: undefined });
      const [stored] = await log.read();
      for (const r of [appended, stored]) {
        expect(Object.keys(r ?? {}).sort()).toEqual(['at', 'hash', 'prevHash', 'seq', 'type']);
      }
      expect(stored).toStrictEqual(appended);
    });

    it('a rejected event leaves the chain unchanged', async () => {
      const first = await log.append(event(0));
      await expect(log.append({ type: 'not-a-type', at: T0 } as unknown as AuditEvent)).rejects.toThrow();
      await expect(log.append({ ...event(1), detail: { n: Number.NaN } })).rejects.toThrow();
      expect(await log.head()).toEqual({ seq: 1, hash: first.hash });
      const second = await log.append(event(2));
      expect(second).toMatchObject({ seq: 2, prevHash: first.hash });
    });
  });
}
