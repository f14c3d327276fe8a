import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from './memory-audit-log.ts';
import { runAuditLogExtras, sampleAuditEvent } from './test-fixtures.ts';
import { verifyChain } from './verify-chain.ts';

// The shared suite runs in memory-audit-log.conformance.test.ts.
runAuditLogExtras('MemoryAuditLog', async () => new MemoryAuditLog());

describe('MemoryAuditLog', () => {
  it('returns frozen records, so readers cannot rewrite history', async () => {
    const log = new MemoryAuditLog();
    await log.append(sampleAuditEvent(1));
    const [record] = await log.read();
    expect(Object.isFrozen(record)).toBe(true);
    expect(() => {
      (record as { actor?: string }).actor = 'mallory';
    }).toThrow(TypeError);
    expect(() => {
      (record?.detail as { n: number }).n = 99;
    }).toThrow(TypeError);
    expect(verifyChain(log.records()).ok).toBe(true);
  });

  it('freezes a nested detail all the way down', async () => {
    const log = new MemoryAuditLog();
    await log.append({ ...sampleAuditEvent(1), detail: { list: [1, { deep: 'x' }], inner: { n: 1 } } });
    const [record] = await log.read();
    const detail = record?.detail as { list: [number, { deep: string }]; inner: { n: number } };
    for (const part of [detail, detail.list, detail.list[1], detail.inner]) expect(Object.isFrozen(part)).toBe(true);
  });

  it('records() is a snapshot', async () => {
    const log = new MemoryAuditLog();
    await log.append(sampleAuditEvent(1));
    const snapshot = log.records();
    await log.append(sampleAuditEvent(2));
    expect(snapshot).toHaveLength(1);
    expect(log.records()).toHaveLength(2);
  });
});
