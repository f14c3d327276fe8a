import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, ORIGIN, type ServerFixture } from '../testing/server-fixture.ts';
import { ServerMetrics } from './metrics.ts';
import { sample } from './testing/prometheus-sample.ts';

let f: ServerFixture | undefined;
afterEach(async () => {
  await f?.close();
});

describe('HTTP request metrics', () => {
  it('counts requests and their latency by route template and status class, never by id', async () => {
    const metrics = new ServerMetrics();
    f = makeServerFixture({ metrics: { collector: metrics } });
    const { requestId } = await f.proposeTransfer();
    expect((await f.agent('GET', `/api/v1/requests/${requestId}`)).status).toBe(200);
    expect((await f.agent('GET', '/api/v1/requests/no-such-request')).status).toBe(404);
    expect((await f.fiona('GET', '/no/such/path')).status).toBe(404);
    const text = await metrics.registry.metrics();
    const count = (labels: string) => sample(text, 'countersign_http_request_duration_seconds_count', labels);
    expect(count('method="GET",route="/api/v1/requests/:id",status="2xx"')).toBe(1);
    expect(count('method="GET",route="/api/v1/requests/:id",status="4xx"')).toBe(1);
    expect(count('method="POST",route="/api/v1/proposals",status="2xx"')).toBe(1);
    expect(count('method="GET",route="unmatched",status="4xx"')).toBe(1);
    expect(text).not.toContain(requestId);
    expect(text).not.toContain('no-such-request');
  });

  it('counts failed sign-ins and invalid bearer tokens, by kind', async () => {
    const metrics = new ServerMetrics();
    f = makeServerFixture({ metrics: { collector: metrics } });
    expect((await f.send('GET', '/api/v1/approvals', 'not-a-token-0000000000')).status).toBe(401);
    expect((await f.send('GET', '/api/v1/approvals', 'not-a-token-1111111111')).status).toBe(401);
    const login = await f.app.request(`${ORIGIN}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      body: new URLSearchParams({ username: 'fiona', password: 'wrong password' }).toString(),
    });
    expect(login.status).toBe(401);
    // A valid token and a good sign-in count nothing.
    expect((await f.fiona('GET', '/api/v1/approvals')).status).toBe(200);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'countersign_auth_failures_total', 'kind="bearer"')).toBe(2);
    expect(sample(text, 'countersign_auth_failures_total', 'kind="password"')).toBe(1);
  });
});
