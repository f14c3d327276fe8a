import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from './serve/testing/postgres.ts';
import { type InProcessServe, serveInProcess } from './testing/serve-in-process.ts';

const root = mkdtempSync(join(tmpdir(), 'countersign-logout-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const PASSWORD = 'logout-test-password-0123';

async function login(url: string): Promise<string> {
  const res = await fetch(new URL('/login', url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
    body: new URLSearchParams({ username: 'approver', password: PASSWORD }).toString(),
  });
  expect(res.status).toBe(303);
  return res.headers.get('set-cookie')!.split(';', 1)[0]!;
}

/** 200 when the cookie signs the approver in; a redirect to /login when it does not. */
async function homeStatus(url: string, cookie: string): Promise<number> {
  return (await fetch(new URL('/', url), { redirect: 'manual', headers: { cookie } })).status;
}

async function logout(url: string, cookie: string): Promise<void> {
  const page = await (await fetch(new URL('/logout', url), { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  const res = await fetch(new URL('/logout', url), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf }).toString(),
  });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/login?signed-out=1');
}

describe('logout is kept in the store', () => {
  it('SQLite: a logged-out cookie stays refused after a restart; one not logged out still works', async () => {
    const cwd = mkdtempSync(join(root, 'sqlite-'));
    const env = { COUNTERSIGN_APPROVER_PASSWORD: PASSWORD };
    const first = await serveInProcess([], { cwd, env });
    const ended = await login(first.url);
    const kept = await login(first.url);
    expect(await homeStatus(first.url, ended)).toBe(200);
    await logout(first.url, ended);
    expect(await homeStatus(first.url, ended)).toBe(303);
    expect(await first.stop()).toBe(0);

    const second = await serveInProcess([], { cwd, env });
    try {
      // The control: same session key after the restart, so only the stored logout refuses `ended`.
      expect(await homeStatus(second.url, kept)).toBe(200);
      expect(await homeStatus(second.url, ended)).toBe(303);
    } finally {
      await second.stop();
    }
  });
});

describePg('logout across two replicas on one PostgreSQL schema', () => {
  const schema = randomSchema();
  const servers: InProcessServe[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await dropSchema(schema);
  });

  it('a logout on one replica refuses the cookie on the other', async () => {
    const cwd = mkdtempSync(join(root, 'pg-'));
    const env = {
      COUNTERSIGN_DATABASE_URL: TEST_PG_URL,
      COUNTERSIGN_PG_SCHEMA: schema,
      COUNTERSIGN_MASTER_SECRET: randomBytes(32).toString('hex'),
      COUNTERSIGN_APPROVER_PASSWORD: PASSWORD,
    };
    const a = await serveInProcess([], { cwd, env });
    servers.push(a);
    const b = await serveInProcess([], { cwd, env });
    servers.push(b);
    const ended = await login(a.url);
    const kept = await login(a.url);
    expect(await homeStatus(b.url, ended)).toBe(200);
    await logout(a.url, ended);
    expect(await homeStatus(b.url, ended)).toBe(303);
    expect(await homeStatus(b.url, kept)).toBe(200);
  });
});
