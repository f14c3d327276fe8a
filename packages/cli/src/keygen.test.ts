import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runCaptured } from './testing/capture-io.ts';

const cwd = tmpdir();

describe('countersign keygen', () => {
  it('prints a new 32-byte secret in hex by default, different every time', async () => {
    const a = await runCaptured(['keygen'], { cwd });
    const b = await runCaptured(['keygen'], { cwd });
    expect(a.code).toBe(0);
    expect(a.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    expect(b.stdout).not.toBe(a.stdout);
    expect(a.stderr).toBe('');
  });

  it('prints base64url with --format base64url', async () => {
    const run = await runCaptured(['keygen', '--format', 'base64url'], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
    expect(Buffer.from(run.stdout.trim(), 'base64url')).toHaveLength(32);
  });

  it('refuses an unknown format with exit 2', async () => {
    const run = await runCaptured(['keygen', '--format', 'base32'], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('base32');
    expect(run.stdout).toBe('');
  });

  it('--ed25519 prints a working PEM key pair', async () => {
    const run = await runCaptured(['keygen', '--ed25519'], { cwd });
    expect(run.code).toBe(0);
    const privatePem = run.stdout.slice(0, run.stdout.indexOf('-----END PRIVATE KEY-----') + 25);
    const publicPem = run.stdout.slice(run.stdout.indexOf('-----BEGIN PUBLIC KEY-----'));
    const privateKey = createPrivateKey(privatePem);
    const publicKey = createPublicKey(publicPem);
    expect(privateKey.asymmetricKeyType).toBe('ed25519');
    const signature = sign(null, Buffer.from('x'), privateKey);
    expect(verify(null, Buffer.from('x'), publicKey, signature)).toBe(true);
  });

  it('--json gives machine output', async () => {
    const secret = JSON.parse((await runCaptured(['keygen', '--json'], { cwd })).stdout);
    expect(secret).toMatchObject({ format: 'hex', bytes: 32 });
    expect(secret.secret).toMatch(/^[0-9a-f]{64}$/);
    const pair = JSON.parse((await runCaptured(['keygen', '--ed25519', '--json'], { cwd })).stdout);
    expect(pair.privateKeyPem).toContain('BEGIN PRIVATE KEY');
    expect(pair.publicKeyPem).toContain('BEGIN PUBLIC KEY');
  });
});

describe('countersign (top level)', () => {
  it('--help lists the commands and exits 0', async () => {
    const run = await runCaptured(['--help'], { cwd });
    expect(run.code).toBe(0);
    for (const command of ['serve', 'keygen', 'policy', 'audit', 'token']) expect(run.stdout).toContain(command);
  });

  it('every subcommand has --help', async () => {
    for (const argv of [['serve'], ['keygen'], ['policy', 'check'], ['policy', 'example'], ['audit', 'verify'], ['audit', 'export'], ['token', 'inspect']]) {
      const run = await runCaptured([...argv, '--help'], { cwd });
      expect(run.code, argv.join(' ')).toBe(0);
      expect(run.stdout, argv.join(' ')).toContain(`Usage: countersign ${argv.join(' ')}`);
    }
  });

  it('an unknown command or option exits 2 with a message on stderr', async () => {
    const unknown = await runCaptured(['frobnicate'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command/);
    const badOption = await runCaptured(['keygen', '--bogus'], { cwd });
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toMatch(/unknown option/);
  });

  it('no command prints help and exits 2', async () => {
    const run = await runCaptured([], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: countersign');
  });

  it('--version prints the package version', async () => {
    const run = await runCaptured(['--version'], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});
