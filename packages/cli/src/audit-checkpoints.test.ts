import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditRecord } from '@countersign/core/audit';
import { generateEd25519Key, Keyring } from '@countersign/core/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from './testing/capture-io.ts';
import { checkpointedStore, rewriteAuditTable } from './testing/checkpointed-store.ts';
import { seedStore } from './testing/seed-store.ts';

const cwd = mkdtempSync(join(tmpdir(), 'countersign-cli-checkpoints-'));
const pristine = join(cwd, 'pristine', 'store.sqlite');
let records: AuditRecord[] = [];
let keyFile = '';

beforeAll(async () => {
  ({ records, keyFile } = await checkpointedStore(pristine));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

let copies = 0;
/** A copy of the pristine store, rewritten by `edit` with every hash recomputed. */
function tampered(edit: (records: AuditRecord[]) => AuditRecord[]): string {
  const path = join(cwd, `tampered-${++copies}.sqlite`);
  copyFileSync(pristine, path);
  rewriteAuditTable(path, edit);
  return path;
}

function callOf(type: AuditRecord['type'], where: (r: AuditRecord) => boolean = () => true): string {
  const found = records.find((r) => r.type === type && where(r));
  if (found?.callId === undefined) throw new Error(`no ${type} record with a call id`);
  return found.callId;
}

const verify = (db: string, ...flags: string[]) => runCaptured(['audit', 'verify', '--db', db, '--json', ...flags], { cwd });

describe('audit verify --key-file: tampering by someone with write access but no key', () => {
  it('the untouched store verifies with the key file and reports what the signatures cover', async () => {
    const run = await verify(pristine, '--key-file', keyFile);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ ok: true, count: records.length, checkpoints: { keys: `master key ${keyFile}`, unsignedTail: 1 } });
    expect(report.checkpoints.checked).toBeGreaterThanOrEqual(3);
    const text = await runCaptured(['audit', 'verify', '--db', pristine, '--key-file', keyFile], { cwd });
    expect(text.stdout).toMatch(/signed checkpoints: \d+ verified \(keys: master key .*\); records up to seq \d+ are signed, 1 after/);
  });

  const attacks: [string, (r: AuditRecord[]) => AuditRecord[]][] = [
    [
      "drop a call's dispatch and result records",
      (r) => {
        const call = callOf('result');
        return r.filter((x) => !(x.callId === call && (x.type === 'dispatch' || x.type === 'result')));
      },
    ],
    ['remove a signed deny', (r) => r.filter((x) => !(x.type === 'decision' && x.detail?.decision === 'deny'))],
    [
      'rewrite a result digest',
      (r) => r.map((x) => (x.type === 'result' ? { ...x, detail: { ...x.detail, resultDigest: 'e'.repeat(64) } } : x)),
    ],
    ['rewrite a rejection reason', (r) => r.map((x) => (x.type === 'rejection' ? { ...x, reason: 'expired' } : x))],
    [
      'erase every record of an executed call',
      (r) => {
        const call = callOf('result');
        return r.filter((x) => x.callId !== call);
      },
    ],
  ];

  for (const [name, attack] of attacks) {
    it(`detects: ${name}, hashes recomputed`, async () => {
      const db = tampered(attack);
      // What the issue reports: the rewritten chain is internally consistent.
      const chainOnly = await verify(db);
      expect(chainOnly.code).toBe(0);
      expect(JSON.parse(chainOnly.stdout).checkpoints).toMatchObject({ checked: null });
      const withKey = await verify(db, '--key-file', keyFile);
      expect(withKey.code).toBe(1);
      expect(JSON.parse(withKey.stdout)).toMatchObject({ ok: false, reason: 'checkpoint_mismatch' });
      // The key from the environment catches it too.
      const fromEnv = await runCaptured(['audit', 'verify', '--db', db, '--json'], {
        cwd,
        env: { COUNTERSIGN_MASTER_SECRET: (await import('@countersign/core/testing')).FIXTURE_SECRET.toString('hex') },
      });
      expect(JSON.parse(fromEnv.stdout)).toMatchObject({ ok: false, reason: 'checkpoint_mismatch' });
    });
  }

  it('detects stripping every checkpoint: a chain with nothing signed is not "verified with key"', async () => {
    const db = tampered((r) => r.filter((x) => x.type !== 'checkpoint' && !(x.type === 'decision' && x.detail?.decision === 'deny')));
    expect((await verify(db)).code).toBe(0);
    const withKey = await verify(db, '--key-file', keyFile);
    expect(withKey.code).toBe(1);
    expect(JSON.parse(withKey.stdout)).toMatchObject({ ok: false, reason: 'no_checkpoint' });
  });

  it('a chain younger than the checkpoint interval says "no checkpoint yet" with exit 3, not BROKEN with exit 1', async () => {
    // A brand-new store: records from the last seconds, the first checkpoint not yet due.
    const now = Date.now();
    const db = tampered((r) => r.filter((x) => x.type !== 'checkpoint').map((x, i) => ({ ...x, at: now - 2_000 + i })));
    const run = await verify(db, '--key-file', keyFile);
    expect(run.code).toBe(3);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ ok: false, reason: 'no_checkpoint' });
    expect(Date.parse(report.checkpointDue)).toBe(now - 2_000 + 30_000);
    const text = await runCaptured(['audit', 'verify', '--db', db, '--key-file', keyFile], { cwd });
    expect(text.code).toBe(3);
    expect(text.stdout).toMatch(/no checkpoint yet: the service signs one within 30 s/);
    expect(text.stdout).not.toMatch(/BROKEN/);
    // The same chain a minute old (its checkpoints stripped) is broken: exit 1 as before.
    const old = tampered((r) => r.filter((x) => x.type !== 'checkpoint').map((x, i) => ({ ...x, at: now - 60_000 + i })));
    const stale = await verify(old, '--key-file', keyFile);
    expect(stale.code).toBe(1);
    expect(JSON.parse(stale.stdout).checkpointDue).toBeUndefined();
  });

  it('flags more records after the last checkpoint than --max-unsigned-tail allows', async () => {
    // Copies of records that open no request (a copy of a proposal that opened one is flagged on its own: request_reopened).
    const db = tampered((r) => [...r, ...r.filter((x) => x.type === 'dispatch' || x.type === 'result').slice(0, 3)]);
    expect((await verify(db, '--key-file', keyFile, '--max-unsigned-tail', '4')).code).toBe(0);
    const run = await verify(db, '--key-file', keyFile, '--max-unsigned-tail', '3');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, reason: 'unsigned_tail' });
  });

  it('a wrong key file fails the checkpoints; an unreadable or malformed one is a usage error (exit 2)', async () => {
    const wrong = join(cwd, 'wrong.key');
    writeFileSync(wrong, `${'ab'.repeat(32)}\n`, { mode: 0o600 });
    const run = await verify(pristine, '--key-file', wrong);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, reason: 'bad_checkpoint' });
    expect((await verify(pristine, '--key-file', join(cwd, 'nope.key'))).code).toBe(2);
    const junk = join(cwd, 'junk.key');
    writeFileSync(junk, 'not a key!');
    expect((await verify(pristine, '--key-file', junk)).code).toBe(2);
  });

  it('verifies Ed25519 checkpoints with the public key PEM alone', async () => {
    const key = generateEd25519Key('ed1');
    const db = join(cwd, 'ed', 'store.sqlite');
    await seedStore(db, new Keyring([key]), 5);
    const pem = join(cwd, 'ed.pub.pem');
    writeFileSync(pem, key.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const run = await verify(db, '--key-file', pem, '--key-id', 'ed1');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, checkpoints: { keys: `Ed25519 key ${pem}` } });
    rewriteAuditTable(db, (r) => r.filter((x) => x.type !== 'result'));
    expect(JSON.parse((await verify(db, '--key-file', pem, '--key-id', 'ed1')).stdout)).toMatchObject({ reason: 'checkpoint_mismatch' });
  });
});

describe('audit verify --anchor on a live log', () => {
  it('an anchor taken earlier still holds after the chain grew past it', async () => {
    const early = records[4]!;
    const run = await verify(pristine, '--anchor', `${early.seq}:${early.hash}`);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, count: records.length });
    const wrong = await verify(pristine, '--anchor', `${early.seq}:${'0'.repeat(64)}`);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ ok: false, reason: 'anchor_mismatch', seq: early.seq });
  });

  it('an anchor protects the tail: truncating back to a checkpoint passes with the key alone, not with the anchor', async () => {
    const head = records.at(-1)!;
    const checkpoints = records.filter((r) => r.type === 'checkpoint');
    const db = tampered((r) => r.slice(0, checkpoints.at(-2)!.seq));
    expect((await verify(db, '--key-file', keyFile)).code).toBe(0);
    const anchored = await verify(db, '--key-file', keyFile, '--anchor', `${head.seq}:${head.hash}`);
    expect(anchored.code).toBe(1);
    expect(JSON.parse(anchored.stdout)).toMatchObject({ ok: false, reason: 'truncated' });
  });
});

describe('audit verify opens the store read-only', () => {
  it('a SQLite file without countersign tables is an error, and verify writes nothing', async () => {
    const empty = join(cwd, 'empty.sqlite');
    writeFileSync(empty, '');
    const run = await runCaptured(['audit', 'verify', '--db', empty], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/not a countersign database/);
  });
});
