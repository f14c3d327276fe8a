import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIONA_TOKEN } from '@countersign/server/test-kit';
import { APPROVER_TOKEN_ENV } from './approver-http.ts';
import { runCaptured } from './testing/capture-io.ts';
import { liveFixturePerTest } from './testing/live-fixture.ts';

// The approver's config file: url and tokenFile, precedence flag > env > file, and a
// token that other users may read is refused rather than used.

const root = mkdtempSync(join(tmpdir(), 'cs-cli-config-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const server = liveFixturePerTest();
/** Nothing listens here: a URL that must not be the one used. */
const DEAD = 'http://127.0.0.1:9';

function configHome(config: object, mode = 0o600, token?: { text: string; mode: number }): string {
  const home = mkdtempSync(join(root, 'xdg-'));
  mkdirSync(join(home, 'countersign'));
  const path = join(home, 'countersign', 'config.json');
  writeFileSync(path, JSON.stringify(config));
  chmodSync(path, mode);
  if (token !== undefined) {
    writeFileSync(join(home, 'countersign', 'token'), `${token.text}\n`);
    chmodSync(join(home, 'countersign', 'token'), token.mode);
  }
  return home;
}

const list = (env: Record<string, string>, args: string[] = []) => runCaptured(['approvals', 'list', ...args], { cwd: process.cwd(), env });

describe('countersign approvals config file', () => {
  it('url and tokenFile from the config file are enough; the flag beats the env, the env beats the file', async () => {
    const url = await server.start();
    await server.fixture().proposeTransfer({ amount: 900, to: 'alice' });
    const home = configHome({ url, tokenFile: 'token' }, 0o644, { text: FIONA_TOKEN, mode: 0o600 });
    expect(await list({ XDG_CONFIG_HOME: home })).toMatchObject({ code: 0, stdout: expect.stringContaining('{"amount":900,"to":"alice"}') });
    // env over file: the file's URL is dead, the env's is live, and the other way round.
    const deadFile = configHome({ url: DEAD, tokenFile: 'token' }, 0o644, { text: FIONA_TOKEN, mode: 0o600 });
    expect(await list({ XDG_CONFIG_HOME: deadFile, COUNTERSIGN_URL: url })).toMatchObject({ code: 0 });
    expect(await list({ XDG_CONFIG_HOME: home, COUNTERSIGN_URL: DEAD })).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot reach') });
    // flag over env.
    expect(await list({ XDG_CONFIG_HOME: home, COUNTERSIGN_URL: DEAD }, ['--url', url])).toMatchObject({ code: 0 });
    // The env's token over the file's: a wrong one in the env is what is sent.
    expect(await list({ XDG_CONFIG_HOME: home, [APPROVER_TOKEN_ENV]: 'wrong-token-aaaaaaaaaaaaaaaaaaaa' })).toMatchObject({ code: 2, stderr: expect.stringContaining('HTTP 401') });
  });

  it('refuses a token other users may read: a group- or world-readable token file, or a "token" key in a shared config', async () => {
    const url = await server.start();
    const sharedTokenFile = configHome({ url, tokenFile: 'token' }, 0o600, { text: FIONA_TOKEN, mode: 0o640 });
    const refused = await list({ XDG_CONFIG_HOME: sharedTokenFile });
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toMatch(/token.* other users may read it \(mode 640\); run: chmod 600 /);
    const sharedConfig = configHome({ url, token: FIONA_TOKEN }, 0o644);
    expect(await list({ XDG_CONFIG_HOME: sharedConfig })).toMatchObject({ code: 2, stderr: expect.stringContaining('holds a token but other users may read it (mode 644)') });
    // The same token in a config only its owner reads is accepted.
    expect(await list({ XDG_CONFIG_HOME: configHome({ url, token: FIONA_TOKEN }, 0o600) })).toMatchObject({ code: 0 });
    // An unknown key is named, with the keys there are.
    expect(await list({ XDG_CONFIG_HOME: configHome({ url, tokenfile: 'x' }) })).toMatchObject({ code: 2, stderr: expect.stringContaining('keys: url, tokenFile') });
  });

  it('approvals --help documents the config file and the precedence', async () => {
    const help = await runCaptured(['approvals', '--help'], { cwd: process.cwd(), env: {} });
    expect(help.stdout).toContain('$XDG_CONFIG_HOME/countersign/config.json');
    expect(help.stdout).toContain('--url, then $COUNTERSIGN_URL, then "url" in the config file');
  });
});
