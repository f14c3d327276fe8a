import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../digest.ts';
import { buildRecord } from './chain.ts';
import type { AuditEvent, AuditLog, AuditRecord } from './types.ts';
import { verifyChain } from './verify-chain.ts';

// Shared by the tests in this folder; not exported from the package.

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

/** A valid chain of `n` records built from `event(1..n)`. */
export function chainOf(n: number, event: (i: number) => AuditEvent = sampleAuditEvent): AuditRecord[] {
  const records: AuditRecord[] = [];
  for (let i = 1; i <= n; i++) records.push(buildRecord(records.at(-1), event(i)));
  return records;
}

/**
 * What our logs add to the shared `runAuditConformance` suite (testing/): they store
 * a copy of the event, drop non-event properties, and fail with a typed error.
 */
export function runAuditLogExtras(name: string, makeLog: () => Promise<AuditLog>): void {
  async function withLog(body: (log: AuditLog) => Promise<void>): Promise<void> {
    const log = await makeLog();
    try {
      await body(log);
    } finally {
      await log.close?.();
    }
  }

  describe(`${name}: storage of events`, () => {
    it('stores a copy: later changes to the event do not reach the log', () =>
      withLog(async (log) => {
        const list = [1];
        const event = sampleAuditEvent(1, { detail: { list } });
        const record = await log.append(event);
        list.push(2);
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

    it('fails with typed errors', () =>
      withLog(async (log) => {
        await expect(log.append({ ...sampleAuditEvent(1), at: Number.NaN })).rejects.toMatchObject({
          name: 'AuditLogError',
          code: 'invalid_event',
        });
        await expect(log.read({ limit: 1.5 })).rejects.toMatchObject({ name: 'AuditLogError', code: 'invalid_argument' });
        expect(await log.head()).toBeUndefined();
      }));
  });
}
