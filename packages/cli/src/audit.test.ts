import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { type AuditHead, type AuditRecord, buildRecord, exportJsonl, hashRecord } from '@countersign/core/audit';
import { FIXTURE_SECRET } from '@countersign/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from './testing/capture-io.ts';
import { seedStore } from './testing/seed-store.ts';

const cwd = mkdtempSync(join(tmpdir(), 'countersign-cli-audit-'));
const db = join(cwd, 'data', 'store.sqlite');
let count = 0;
let head = '';

beforeAll(async () => {
  const seeded = await seedStore(db);
  count = seeded.records.length;
  const last = seeded.records.at(-1)!;
  head = `${last.seq}:${last.hash}`;
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Rewrites line `n` (1-based) of a JSON-lines file. */
function editLine(file: string, n: number, edit: (record: Record<string, unknown>) => void): string {
  const lines = readFileSync(join(cwd, 'export.jsonl'), 'utf8').split('\n');
  const record = JSON.parse(lines[n - 1]!);
  edit(record);
  lines[n - 1] = JSON.stringify(record);
  writeFileSync(join(cwd, file), lines.join('\n'));
  return file;
}

describe('countersign audit export', () => {
  it('writes the chain as JSON lines to --out and prints count and head on stderr', async () => {
    expect(count).toBeGreaterThan(10);
    const run = await runCaptured(['audit', 'export', '--db', 'data/store.sqlite', '--out', 'export.jsonl'], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`exported ${count} records`);
    expect(run.stderr).toContain(head);
    const lines = readFileSync(join(cwd, 'export.jsonl'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(count);
    expect(lines.map((line) => JSON.parse(line).seq)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  });

  it('writes to stdout without --out, the same bytes', async () => {
    const run = await runCaptured(['audit', 'export', '--db', db], { cwd: '/' });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(readFileSync(join(cwd, 'export.jsonl'), 'utf8'));
  });

  it('refuses a database that does not exist (exit 2) instead of creating one', async () => {
    const run = await runCaptured(['audit', 'export', '--db', 'missing.sqlite'], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no database at .*missing\.sqlite/);
  });
});

describe('countersign audit verify', () => {
  it('the store: exit 0 with count and head', async () => {
    const run = await runCaptured(['audit', 'verify', '--db', 'data/store.sqlite'], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`audit chain ok: ${count} records`);
    expect(run.stdout).toContain(`head: ${head}`);
    const json = await runCaptured(['audit', 'verify', '--db', 'data/store.sqlite', '--json'], { cwd });
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, count, head: { seq: count } });
  });

  it('an intact export: exit 0; with its head as --anchor too', async () => {
    expect((await runCaptured(['audit', 'verify', '--file', 'export.jsonl'], { cwd })).code).toBe(0);
    const anchored = await runCaptured(['audit', 'verify', '--file', 'export.jsonl', '--anchor', head], { cwd });
    expect(anchored.code).toBe(0);
  });

  it('one edited line: exit 1, reports the seq and line', async () => {
    const file = editLine('edited.jsonl', 5, (r) => {
      r.actor = 'mallory';
    });
    const run = await runCaptured(['audit', 'verify', '--file', file], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('BROKEN');
    expect(run.stdout).toContain('at seq 5, line 5: hash_mismatch');
    const json = JSON.parse((await runCaptured(['audit', 'verify', '--file', file, '--json'], { cwd })).stdout);
    expect(json).toMatchObject({ ok: false, seq: 5, line: 5, reason: 'hash_mismatch' });
  });

  it('an edited line whose hash was recomputed still breaks the chain at the next record', async () => {
    const { hashRecord } = await import('@countersign/core/audit');
    const file = editLine('rehashed.jsonl', 3, (r) => {
      r.at = (r.at as number) + 1;
      const { hash: _old, ...rest } = r;
      r.hash = hashRecord(r.prevHash as string, r.seq as number, rest as never);
    });
    const run = await runCaptured(['audit', 'verify', '--file', file, '--json'], { cwd });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ seq: 4, reason: 'prev_hash_mismatch' });
  });

  it('a dropped middle line: exit 1 with seq_gap', async () => {
    const lines = readFileSync(join(cwd, 'export.jsonl'), 'utf8').split('\n');
    lines.splice(6, 1);
    writeFileSync(join(cwd, 'dropped.jsonl'), lines.join('\n'));
    const run = await runCaptured(['audit', 'verify', '--file', 'dropped.jsonl', '--json'], { cwd });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, seq: 8, line: 7, reason: 'seq_gap' });
  });

  it('dropped last lines pass without an anchor and fail with one (truncated)', async () => {
    const lines = readFileSync(join(cwd, 'export.jsonl'), 'utf8').trimEnd().split('\n');
    writeFileSync(join(cwd, 'short.jsonl'), `${lines.slice(0, -2).join('\n')}\n`);
    expect((await runCaptured(['audit', 'verify', '--file', 'short.jsonl'], { cwd })).code).toBe(0);
    const run = await runCaptured(['audit', 'verify', '--file', 'short.jsonl', '--anchor', head], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('truncated');
    expect(run.stdout).toContain(`seq ${count - 1}`);
  });

  it('a line that is not JSON: exit 1 with its line number', async () => {
    const lines = readFileSync(join(cwd, 'export.jsonl'), 'utf8').split('\n');
    lines[2] = '{"seq": 3, oops';
    writeFileSync(join(cwd, 'garbled.jsonl'), lines.join('\n'));
    const run = await runCaptured(['audit', 'verify', '--file', 'garbled.jsonl', '--json'], { cwd });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, line: 3, reason: 'invalid_json' });
  });

  it('a record edited inside the database: exit 1 with its seq', async () => {
    const tampered = join(cwd, 'tampered.sqlite');
    await seedStore(tampered);
    const sqlite = new DatabaseSync(tampered);
    const row = sqlite.prepare('SELECT event FROM audit_records WHERE seq = 6').get() as { event: string };
    const event = JSON.parse(row.event);
    event.actor = 'someone-else';
    sqlite.prepare('UPDATE audit_records SET event = ? WHERE seq = 6').run(JSON.stringify(event));
    sqlite.close();
    const run = await runCaptured(['audit', 'verify', '--db', tampered], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/BROKEN .* at seq 6: hash_mismatch/);
  });

  it('usage and I/O errors exit 2', async () => {
    const missing = await runCaptured(['audit', 'verify', '--file', 'nope.jsonl'], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read nope\.jsonl/);
    const badAnchor = await runCaptured(['audit', 'verify', '--file', 'export.jsonl', '--anchor', '12:abc'], { cwd });
    expect(badAnchor.code).toBe(2);
    expect(badAnchor.stderr).toMatch(/--anchor/);
    const both = await runCaptured(['audit', 'verify', '--file', 'export.jsonl', '--db', db], { cwd });
    expect(both.code).toBe(2);
    const noDb = await runCaptured(['audit', 'verify'], { cwd });
    expect(noDb.code).toBe(2);
    expect(noDb.stderr).toMatch(/no database at .*\.countersign\/countersign\.sqlite/);
    const json = await runCaptured(['audit', 'verify', '--file', 'nope.jsonl', '--json'], { cwd });
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: 'io' } });
  });
});

describe('countersign audit verify: signed decision records', () => {
  const env = { COUNTERSIGN_MASTER_SECRET: FIXTURE_SECRET.toString('hex') };

  it('with the key, every decision record is verified', async () => {
    const run = await runCaptured(['audit', 'verify', '--db', 'data/store.sqlite'], { cwd, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/signed decision records: [1-9]\d* verified \(keys: COUNTERSIGN_MASTER_SECRET\)/);
    const without = await runCaptured(['audit', 'verify', '--db', 'data/store.sqlite'], { cwd });
    expect(without.stdout).toContain('signed decision records: not checked');
  });

  it('a chain rewritten with recomputed hashes passes the chain check but not the decision records', async () => {
    await runCaptured(['audit', 'export', '--db', 'data/store.sqlite', '--out', 'export.jsonl'], { cwd });
    const records = readFileSync(join(cwd, 'export.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditRecord);
    // Someone with write access to the store claims another approver decided, and
    // rebuilds every hash from there on so the chain itself still verifies.
    let prev: AuditHead | undefined;
    const rewritten = records.map((record) => {
      const { seq: _seq, prevHash: _prev, hash: _hash, ...event } = record;
      const next = buildRecord(prev, record.type === 'decision' ? { ...event, actor: 'mallory' } : event);
      prev = { seq: next.seq, hash: next.hash };
      return next;
    });
    writeFileSync(join(cwd, 'rewritten.jsonl'), exportJsonl(rewritten));
    const firstDecision = rewritten.find((r) => r.type === 'decision')!;

    const chainOnly = await runCaptured(['audit', 'verify', '--file', 'rewritten.jsonl'], { cwd });
    expect(chainOnly.code).toBe(0);
    // The first checkpoint after the edited decision signs a head the rewritten chain no longer has.
    const checkpointAfter = rewritten.find((r) => r.type === 'checkpoint' && r.seq > firstDecision.seq)!;
    const withKey = await runCaptured(['audit', 'verify', '--file', 'rewritten.jsonl', '--json'], { cwd, env });
    expect(withKey.code).toBe(1);
    expect(JSON.parse(withKey.stdout)).toMatchObject({ ok: false, reason: 'checkpoint_mismatch', seq: checkpointAfter.seq });
  });

  it('a forged decision in the unsigned tail passes the checkpoints but not the decision records', async () => {
    const records = readFileSync(join(cwd, 'export.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditRecord);
    const decision = records.find((r) => r.type === 'decision')!;
    const { seq: _seq, prevHash: _prev, hash: _hash, ...event } = decision;
    const forged = buildRecord(records.at(-1), { ...event, actor: 'mallory' });
    writeFileSync(join(cwd, 'tail-forged.jsonl'), exportJsonl([...records, forged]));
    const withKey = await runCaptured(['audit', 'verify', '--file', 'tail-forged.jsonl', '--json'], { cwd, env });
    expect(withKey.code).toBe(1);
    expect(JSON.parse(withKey.stdout)).toMatchObject({
      ok: false,
      reason: 'decision_evidence',
      seq: forged.seq,
      message: 'signed actor differs from the record',
    });
  });
});


describe('countersign audit verify: both audit record formats', () => {
  const env = { COUNTERSIGN_MASTER_SECRET: FIXTURE_SECRET.toString('hex') };
  // testing/format-1-export.jsonl is seedStore's chain as the format 1 code wrote it (separate
  // verdict, approval_requested and token_minted records), checkpoints and decisions signed.
  const formatOne = fileURLToPath(new URL('./testing/format-1-export.jsonl', import.meta.url));

  it('a chain written before format 2 verifies, checkpoints and signed decisions included', async () => {
    const run = await runCaptured(['audit', 'verify', '--file', formatOne, '--json'], { cwd, env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, count: 20, decisions: { checked: 2 } });
  });

  it('a format 2 store: one record per step; a proposal rewritten without its verdict is malformed', async () => {
    await runCaptured(['audit', 'export', '--db', 'data/store.sqlite', '--out', 'format-2.jsonl'], { cwd });
    const records = readFileSync(join(cwd, 'format-2.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditRecord);
    expect(records.filter((r) => ['verdict', 'approval_requested', 'token_minted'].includes(r.type))).toEqual([]);
    // Someone with write access strips the verdict from a proposal and recomputes every later hash.
    const target = records.find((r) => r.type === 'proposal')!;
    let prevHash: string | undefined;
    const rewritten = records.map((record) => {
      const { hash: _hash, prevHash: _prev, ...event } = record;
      const { verdict: _verdict, ...kept } = event.detail ?? {};
      const changed = record === target ? { ...event, detail: kept } : event;
      const prev = prevHash ?? record.prevHash;
      const next = { ...changed, prevHash: prev, hash: hashRecord(prev, record.seq, changed) } as AuditRecord;
      prevHash = next.hash;
      return next;
    });
    writeFileSync(join(cwd, 'no-verdict.jsonl'), exportJsonl(rewritten));
    const run = await runCaptured(['audit', 'verify', '--file', 'no-verdict.jsonl', '--json'], { cwd });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, seq: target.seq, reason: 'malformed_record', message: expect.stringMatching(/must carry its verdict/) });
  });
});
