import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InProcessServe } from '../testing/serve-in-process.ts';
import { describePg, type TcpProxy } from '../serve/testing/postgres.ts';
import { type ServeBehindProxy, serveBehindProxy } from '../serve/testing/serve-behind-proxy.ts';
import { sample } from '@countersign/server/test-kit';

const METRICS_TOKEN = `metrics-${randomBytes(12).toString('hex')}`;

describePg('readiness and metrics when PostgreSQL goes away and comes back', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-ops-pg-'));
  let setup: ServeBehindProxy;
  let proxy: TcpProxy;
  let server: InProcessServe;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(new URL(path, server.url), { headers });
  const scrape = async () => (await get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` })).text();

  beforeAll(async () => {
    setup = await serveBehindProxy(['--json', '--log-level', 'warn'], {
      cwd,
      env: { COUNTERSIGN_MASTER_SECRET: randomBytes(32).toString('hex'), COUNTERSIGN_METRICS_TOKEN: METRICS_TOKEN },
    });
    ({ proxy, server } = setup);
  });
  afterAll(async () => {
    await setup?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('/metrics needs its bearer token when COUNTERSIGN_METRICS_TOKEN is set', async () => {
    expect((await get('/metrics')).status).toBe(401);
    expect((await get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}x` })).status).toBe(401);
    expect((await get('/metrics', { authorization: `Basic ${METRICS_TOKEN}` })).status).toBe(401);
    expect(sample(await scrape(), 'countersign_store_up')).toBe(1);
  });

  it('/readyz: 200, then 503 store_unavailable while the connection is refused, then 200 again', async () => {
    expect((await get('/readyz')).status).toBe(200);
    await proxy.cut('refuse');
    const during = await get('/readyz');
    expect(during.status).toBe(503);
    expect(await during.json()).toEqual({ status: 'not_ready', reason: 'store_unavailable' });
    expect(sample(await scrape(), 'countersign_store_up')).toBe(0);
    expect((await get('/healthz')).status).toBe(200);
    await proxy.restore();
    await expect.poll(async () => (await get('/readyz')).status, { timeout: 15_000 }).toBe(200);
    expect(sample(await scrape(), 'countersign_store_up')).toBe(1);
  });
});
