import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../digest.ts';
import { GENESIS_HASH, hashRecord } from './chain.ts';
import { AuditLogError } from './errors.ts';
import type { AuditEvent, AuditLog } from './types.ts';
import { verifyChain } from './verify-chain.ts';

/**
 * A shared suite every AuditLog backend runs (memory, JSON lines, SQLite, Postgres).
 * Lives beside the code it tests; `@countersign/core/testing` should re-export it.
 */
export interface AuditLogHarness {
  /** A log that is empty and used by this test only. */
  log: AuditLog;
  cleanup?: () => Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);

/** A typical event: ten short strings and a small detail. */
export function sampleAuditEvent(i: number, overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    type: 'dispatch',
    at: T0 + i,
    runId: `run-${i % 7}`,
    sessionId: 'session-1',
    callId: `call-${i}`,
    proposalId: `prop-${i}`,
    requestId: `req-${i}`,
    toolName: 'transfer',
    argsDigest: sha256Hex(`{"amount":${i}}`),
    actor: 'user:42',
    reason: 'ok',
    detail: { ruleId: 'finance', n: i, nested: { list: [1, 'two', null, true] } },
    ...overrides,
  };
}

export function runAuditLogConformance(name: string, makeHarness: () => Promise<AuditLogHarness>): void {
  async function withLog(body: (log: AuditLog) => Promise<void>): Promise<void> {
    const harness = await makeHarness();
    try {
      await body(harness.log);
    } finally {
      await harness.log.close?.();
      await harness.cleanup?.();
    }
  }

  describe(`AuditLog conformance: ${name}`, () => {
    it('starts empty', () =>
      withLog(async (log) => {
        expect(await log.head()).toBeUndefined();
        expect(await log.read()).toEqual([]);
      }));

    it('chains appended records from the genesis hash', () =>
      withLog(async (log) => {
        const first = await log.append(sampleAuditEvent(1));
        const second = await log.append(sampleAuditEvent(2, { type: 'result', detail: undefined }));
        expect(first).toMatchObject({ seq: 1, prevHash: GENESIS_HASH, ...sampleAuditEvent(1) });
        expect(first.hash).toBe(hashRecord(GENESIS_HASH, 1, sampleAuditEvent(1)));
        expect(second).toMatchObject({ seq: 2, prevHash: first.hash, type: 'result' });
        expect(second).not.toHaveProperty('detail');
        expect(await log.head()).toEqual({ seq: 2, hash: second.hash });
        expect(await log.read()).toEqual([first, second]);
      }));

    it('reads after a seq, up to a limit', () =>
      withLog(async (log) => {
        const written = [];
        for (let i = 1; i <= 5; i++) written.push(await log.append(sampleAuditEvent(i)));
        expect(await log.read({ afterSeq: 2 })).toEqual(written.slice(2));
        expect(await log.read({ afterSeq: 1, limit: 2 })).toEqual(written.slice(1, 3));
        expect(await log.read({ limit: 0 })).toEqual([]);
        expect(await log.read({ afterSeq: 5 })).toEqual([]);
        expect(await log.read({ afterSeq: 99 })).toEqual([]);
        await expect(log.read({ afterSeq: -1 })).rejects.toMatchObject({ code: 'invalid_argument' });
      }));

    it('forms one chain from 200 concurrent appends', () =>
      withLog(async (log) => {
        const results = await Promise.all(Array.from({ length: 200 }, (_, i) => log.append(sampleAuditEvent(i))));
        expect(results.map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
        const records = await log.read();
        expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
        const head = await log.head();
        expect(head?.seq).toBe(200);
        expect(verifyChain(records, { anchor: head })).toEqual({ ok: true, count: 200, head });
      }));

    it('rejects an invalid event without breaking the chain', () =>
      withLog(async (log) => {
        await log.append(sampleAuditEvent(1));
        const bad = { ...sampleAuditEvent(2), at: Number.NaN };
        await expect(log.append(bad)).rejects.toBeInstanceOf(AuditLogError);
        await expect(log.append(bad)).rejects.toMatchObject({ code: 'invalid_event' });
        await log.append(sampleAuditEvent(3));
        const records = await log.read();
        expect(records.map((r) => r.seq)).toEqual([1, 2]);
        expect(verifyChain(records).ok).toBe(true);
      }));

    it('stores a copy: later changes to the event do not reach the log', () =>
      withLog(async (log) => {
        const event = sampleAuditEvent(1, { detail: { list: [1] } });
        const record = await log.append(event);
        (event.detail?.list as number[]).push(2);
        event.actor = 'mallory';
        const [stored] = await log.read();
        expect(stored).toEqual(record);
        expect(stored?.detail).toEqual({ list: [1] });
        expect(stored?.actor).toBe('user:42');
        expect(verifyChain(await log.read()).ok).toBe(true);
      }));

    it('drops properties that are not AuditEvent fields', () =>
      withLog(async (log) => {
        const event = { ...sampleAuditEvent(1), canonicalArgs: '{"password":"hunter2"}' } as AuditEvent;
        const record = await log.append(event);
        expect(record).not.toHaveProperty('canonicalArgs');
        expect(JSON.stringify(await log.read())).not.toContain('hunter2');
      }));
  });
}
