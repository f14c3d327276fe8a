import { appendFile, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAuditConformance } from '../testing/audit-conformance.ts';
import { AuditLogError } from './errors.ts';
import { JsonlAuditLog } from './jsonl-audit-log.ts';
import { exportJsonl, parseJsonl } from './jsonl.ts';
import { chainOf, runAuditLogExtras, sampleAuditEvent } from './test-fixtures.ts';
import type { AuditRecord } from './types.ts';
import { verifyChain } from './verify-chain.ts';

let dir: string;
let counter = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'countersign-audit-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
function freshPath(): string {
  counter += 1;
  return join(dir, `log-${counter}.jsonl`);
}

async function openError(path: string, opts?: { verifyOnOpen?: boolean }): Promise<AuditLogError> {
  const error = await JsonlAuditLog.open(path, opts).then(
    async (log) => {
      await log.close();
      throw new Error('open should have failed');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuditLogError);
  return error as AuditLogError;
}

async function harness(opts?: { sync?: boolean; verifyOnOpen?: boolean }) {
  const log = await JsonlAuditLog.open(freshPath(), opts);
  return { log, cleanup: () => log.close() };
}
runAuditConformance('jsonl', () => harness());
runAuditConformance('jsonl (no fsync, no verify on open)', () => harness({ sync: false, verifyOnOpen: false }));
runAuditLogExtras('JsonlAuditLog', () => JsonlAuditLog.open(freshPath()));

describe('JsonlAuditLog', () => {
  it('writes one record per line that parseJsonl and verifyChain accept', async () => {
    const path = freshPath();
    const log = await JsonlAuditLog.open(path);
    const written = [];
    for (let i = 1; i <= 3; i++) written.push(await log.append(sampleAuditEvent(i)));
    await log.close();
    const text = await readFile(path, 'utf8');
    expect(text).toBe(exportJsonl(written));
    expect(text.split('\n')).toHaveLength(4);
    const parsed = parseJsonl(text);
    expect(parsed).toEqual({ ok: true, records: written });
  });

  it('continues the chain after reopening', async () => {
    const path = freshPath();
    const first = await JsonlAuditLog.open(path);
    await first.append(sampleAuditEvent(1));
    const second = await first.append(sampleAuditEvent(2));
    await first.close();

    for (const verifyOnOpen of [true, false]) {
      const reopened = await JsonlAuditLog.open(path, { verifyOnOpen });
      const head = await reopened.head();
      expect(head?.seq).toBeGreaterThanOrEqual(2);
      const next = await reopened.append(sampleAuditEvent(3));
      expect(next.seq).toBe((head?.seq ?? 0) + 1);
      expect(next.prevHash).toBe(head?.hash);
      await reopened.close();
    }
    const log = await JsonlAuditLog.open(path);
    const records = await log.read();
    await log.close();
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(records[1]).toEqual(second);
    expect(verifyChain(records).ok).toBe(true);
  });

  it('reads ranges from the file after reopening', async () => {
    const path = freshPath();
    const records = chainOf(10);
    await writeFile(path, exportJsonl(records));
    const log = await JsonlAuditLog.open(path);
    expect(await log.read({ afterSeq: 3, limit: 4 })).toEqual(records.slice(3, 7));
    expect(await log.read({ afterSeq: 8 })).toEqual(records.slice(8));
    await log.close();
  });

  it('refuses a log whose last line is a partial write', async () => {
    const path = freshPath();
    const text = exportJsonl(chainOf(3));
    await writeFile(path, text.slice(0, text.length - 20));
    for (const verifyOnOpen of [true, false]) {
      const error = await openError(path, { verifyOnOpen });
      expect(error.code).toBe('corrupt_log');
      expect(error.message).toContain('line 3 is incomplete');
    }
    // Nothing was appended to the damaged file.
    expect(await readFile(path, 'utf8')).toBe(text.slice(0, text.length - 20));
  });

  it('refuses a complete last record that lacks its newline (the next append would glue onto it)', async () => {
    const path = freshPath();
    const text = exportJsonl(chainOf(2));
    await writeFile(path, text.slice(0, -1));
    expect((await openError(path)).code).toBe('corrupt_log');
  });

  it('refuses a malformed line when verifying on open', async () => {
    const path = freshPath();
    const lines = exportJsonl(chainOf(3)).split('\n');
    lines[1] = '{"seq": 2, "oops"';
    await writeFile(path, lines.join('\n'));
    const error = await openError(path);
    expect(error.code).toBe('corrupt_log');
    expect(error.message).toContain('line 2 is not valid JSON');
  });

  it('refuses an edited record when verifying on open', async () => {
    const path = freshPath();
    const records = chainOf(4);
    const edited = { ...records[1], actor: 'mallory' } as AuditRecord;
    await writeFile(path, exportJsonl([records[0]!, edited, records[2]!, records[3]!]));
    const error = await openError(path);
    expect(error.code).toBe('corrupt_log');
    expect(error.message).toContain('line 2');
    expect(error.message).toContain('hash_mismatch');
    // Without verification only the last line is checked, so the edit goes unnoticed on open.
    const log = await JsonlAuditLog.open(path, { verifyOnOpen: false });
    expect(verifyChain(await log.read())).toMatchObject({ ok: false, index: 1, reason: 'hash_mismatch' });
    await log.close();
  });

  it('refuses, even without verification, a last line whose seq does not match its position', async () => {
    const path = freshPath();
    const records = chainOf(4);
    await writeFile(path, exportJsonl([records[0]!, records[1]!, records[3]!]));
    const error = await openError(path, { verifyOnOpen: false });
    expect(error.code).toBe('corrupt_log');
    expect(error.message).toContain('holds seq 4, expected 3');
  });

  it('reports a file changed behind its back when reading', async () => {
    const path = freshPath();
    const log = await JsonlAuditLog.open(path, { sync: false });
    await log.append(sampleAuditEvent(1));
    await log.append(sampleAuditEvent(2));
    await truncate(path, 10);
    await appendFile(path, 'x'.repeat(500));
    await expect(log.read()).rejects.toMatchObject({ code: 'corrupt_log' });
    await log.close();
  });

  it('reports an unopenable path as io_error', async () => {
    const error = await openError(join(dir, 'missing-dir', 'log.jsonl'));
    expect(error.code).toBe('io_error');
  });

  it('completes appends queued before close, then refuses more', async () => {
    const path = freshPath();
    const log = await JsonlAuditLog.open(path);
    const pending = Array.from({ length: 20 }, (_, i) => log.append(sampleAuditEvent(i)));
    await log.close();
    expect((await Promise.all(pending)).map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await expect(log.append(sampleAuditEvent(99))).rejects.toMatchObject({ code: 'closed' });
    await expect(log.read()).rejects.toMatchObject({ code: 'closed' });
    const parsed = parseJsonl(await readFile(path, 'utf8'));
    expect(parsed.ok && verifyChain(parsed.records).ok).toBe(true);
  });

  it('keeps one chain across 200 concurrent appends on disk', async () => {
    const path = freshPath();
    const log = await JsonlAuditLog.open(path);
    await Promise.all(Array.from({ length: 200 }, (_, i) => log.append(sampleAuditEvent(i))));
    await log.close();
    const parsed = parseJsonl(await readFile(path, 'utf8'));
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.records.map((r) => r.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(verifyChain(parsed.records)).toMatchObject({ ok: true, count: 200 });
  });
});
