import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeApprovalToken, generateEd25519Key, Keyring, mintApprovalToken } from '@countersign/core/token';
import { FIXTURE_SECRET } from '@countersign/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from './testing/capture-io.ts';
import { seedStore } from './testing/seed-store.ts';

const cwd = mkdtempSync(join(tmpdir(), 'countersign-cli-token-'));
const db = join(cwd, 'store.sqlite');
const env = { COUNTERSIGN_MASTER_SECRET: FIXTURE_SECRET.toString('hex') };
// The fixture's clock starts here; its approvals live 600 s.
const AT = '2026-06-01T12:01:00Z';
let seeded: Awaited<ReturnType<typeof seedStore>>;

beforeAll(async () => {
  seeded = await seedStore(db);
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const inspect = (token: string, extra: string[] = [], options: { env?: Record<string, string>; stdin?: string } = {}) =>
  runCaptured(['token', 'inspect', token, '--at', AT, ...extra], { cwd, env: options.env ?? env, ...(options.stdin === undefined ? {} : { stdin: options.stdin }) });

describe('countersign token inspect', () => {
  it('against the store: an approved, unused token is ok (exit 0)', async () => {
    const run = await inspect(seeded.unused.token, ['--db', db]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('call       call-3');
    expect(run.stdout).toContain('expires    2026-06-01T12:10:00.000Z (in 9m 0s)');
    expect(run.stdout).toMatch(/^ok: .*against the ledger/m);
  });

  it('against the store: a token already used is rejected already_consumed (exit 1)', async () => {
    const run = await inspect(seeded.used.token, ['--db', db, '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, verification: { checked: 'ledger', reason: 'already_consumed' } });
  });

  it('against the store: past the expiry it is rejected expired', async () => {
    const run = await runCaptured(['token', 'inspect', seeded.unused.token, '--db', db, '--at', '2026-06-01T13:00:00Z', '--json'], { cwd, env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).verification.reason).toBe('expired');
  });

  it('a token for a call the ledger never recorded: unknown_call', async () => {
    const [h, p, s] = seeded.unused.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.call = 'call-999';
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    const run = await inspect(forged, ['--db', db, '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).verification.reason).toBe('unknown_call');
  });

  it('a token whose claims were edited fails the signature', async () => {
    const [h, p, s] = seeded.unused.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.exp += 3600;
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    const withStore = await inspect(forged, ['--db', db, '--json']);
    expect(JSON.parse(withStore.stdout).verification.reason).toBe('bad_signature');
    const alone = await inspect(forged, ['--json']);
    expect(alone.code).toBe(1);
    expect(JSON.parse(alone.stdout).verification).toMatchObject({ checked: 'claims', reason: 'bad_signature' });
  });

  it('shows hidden characters in claims as escapes and warns, in text and JSON', async () => {
    const [h, p, s] = seeded.unused.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.sub = 'user:\u202Enimda\u202C';
    claims.tool = 'trans\u200Bfer';
    const hostile = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    const text = await inspect(hostile, [], { env: {} });
    expect(text.stdout).toContain('principal  user:\\u202Enimda\\u202C\n');
    expect(text.stdout).toContain('tool       trans\\u200Bfer\n');
    expect(text.stdout).toMatch(/warning {4}\/sub: bidi_control: .*U\+202E RIGHT-TO-LEFT OVERRIDE/);
    expect(text.stdout).toMatch(/warning {4}\/tool: invisible: .*U\+200B ZERO WIDTH SPACE/);
    expect(text.stdout).not.toMatch(/[\u202E\u200B]/);
    const json = JSON.parse((await inspect(hostile, ['--json'], { env: {} })).stdout);
    expect(json.claims.sub).toBe('user:\u202Enimda\u202C');
    expect(json.display.findings.map((f: { pointer: string }) => f.pointer)).toEqual(['/tool', '/sub']);
    const plain = await inspect(seeded.unused.token, ['--json'], { env: {} });
    expect(JSON.parse(plain.stdout).display).toEqual({ findings: [], truncated: false });
    expect((await inspect(seeded.unused.token, [], { env: {} })).stdout).not.toContain('warning');
  });

  it('a correctly signed token for the recorded call that the server never issued: token_mismatch', async () => {
    const claims = decodeApprovalToken(seeded.unused.token);
    if (!claims.ok) throw new Error('seed token does not decode');
    const { v: _v, canon: _canon, ...input } = claims.token.claims;
    const minted = mintApprovalToken({ ...input, jti: 'a-token-id-the-ledger-never-issued' }, seeded.keyring);
    const run = await inspect(minted, ['--db', db, '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).verification.reason).toBe('token_mismatch');
  });

  it('the wrong master secret: bad_signature', async () => {
    const run = await inspect(seeded.unused.token, ['--db', db, '--json'], { env: { COUNTERSIGN_MASTER_SECRET: 'ab'.repeat(32) } });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).verification.reason).toBe('bad_signature');
  });

  it('without a store: verifies against its own claims and says so', async () => {
    const run = await inspect(seeded.unused.token);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/NOT checked against a recorded call/);
  });

  it('without any key: decodes, says NOT verified, exit 1', async () => {
    const run = await inspect(seeded.unused.token, [], { env: {} });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('tool       transfer');
    expect(run.stdout).toContain('NOT verified');
  });

  it('uses the master.key next to the SQLite database when no env secret is set', async () => {
    const dir = mkdtempSync(join(cwd, 'keyfile-'));
    writeFileSync(join(dir, 'master.key'), `${FIXTURE_SECRET.toString('hex')}\n`, { mode: 0o600 });
    const local = await seedStore(join(dir, 'countersign.sqlite'));
    const run = await inspect(local.unused.token, ['--db', join(dir, 'countersign.sqlite')], { env: {} });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`with ${join(dir, 'master.key')}`);
  });

  it('reads the token from stdin with -', async () => {
    const run = await inspect('-', ['--db', db], { stdin: `${seeded.unused.token}\n` });
    expect(run.code).toBe(0);
  });

  it('a malformed token: exit 1 with the reason', async () => {
    const run = await inspect('not.a.token', ['--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, verification: { reason: 'malformed' } });
  });

  it('Ed25519: verifies with --public-key, and a different public key fails', async () => {
    const key = generateEd25519Key('ed1');
    const dir = mkdtempSync(join(cwd, 'ed-'));
    const edDb = join(dir, 'store.sqlite');
    const edSeeded = await seedStore(edDb, new Keyring([key]));
    writeFileSync(join(dir, 'public.pem'), key.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const ok = await inspect(edSeeded.unused.token, ['--db', edDb, '--public-key', join(dir, 'public.pem')], { env: {} });
    expect(ok.code).toBe(0);
    const other = generateEd25519Key('ed1');
    writeFileSync(join(dir, 'other.pem'), other.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const bad = await inspect(edSeeded.unused.token, ['--db', edDb, '--public-key', join(dir, 'other.pem'), '--json'], { env: {} });
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).verification.reason).toBe('bad_signature');
    // The verifier's key decides the algorithm: an HS256 token checked with an Ed25519 key is refused.
    const mixed = await inspect(seeded.unused.token, ['--public-key', join(dir, 'public.pem'), '--json'], { env: {} });
    expect(JSON.parse(mixed.stdout).verification.reason).toBe('algorithm_mismatch');
  });

  it('usage errors exit 2', async () => {
    expect((await inspect(seeded.unused.token, ['--public-key', 'missing.pem'])).code).toBe(2);
    expect((await runCaptured(['token', 'inspect', seeded.unused.token, '--at', 'yesterday'], { cwd, env })).code).toBe(2);
    expect((await inspect(seeded.unused.token, ['--db', join(cwd, 'none.sqlite')])).code).toBe(2);
  });
});
