import { requestView } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { AGENT_TOKEN, FIONA_TOKEN, OSCAR_TOKEN, type ServerFixture } from '@countersign/server/test-kit';
import { APPROVER_TOKEN_ENV } from './commands/approvals.ts';
import { runCaptured } from './testing/capture-io.ts';
import { liveFixturePerTest } from './testing/live-fixture.ts';

let f: ServerFixture;
const server = liveFixturePerTest();

/** The fixture's app on a real port, so the CLI talks HTTP to it like to any running service. */
async function live(): Promise<string> {
  const url = await server.start();
  f = server.fixture();
  return url;
}

async function approved() {
  const proposed = await f.proposeTransfer();
  expect((await f.fiona('POST', '/api/v1/decisions', { requestId: proposed.requestId, decision: 'approve' })).status).toBe(200);
  return proposed;
}

const revoke = (url: string, requestId: string, token: string | undefined, ...extra: string[]) =>
  runCaptured(['approvals', 'revoke', requestId, '--url', url, ...extra], { cwd: process.cwd(), env: { [APPROVER_TOKEN_ENV]: token } });

describe('countersign approvals revoke', () => {
  it('revokes an approved, unused call over the HTTP API (exit 0); the agent can no longer run it', async () => {
    const url = await live();
    const { requestId, callId } = await approved();
    const run = await revoke(url, requestId, FIONA_TOKEN);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`revoked ${requestId} ("transfer")\n`);
    expect((await requestView(f.gate, requestId))?.status).toBe('revoked');
    const dispatched = (await (await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(callId))).json()) as { status: string };
    expect(dispatched.status).not.toBe('executed');
  });

  it('--json prints one JSON line; a second revoke is refused with exit 1 and the status', async () => {
    const url = await live();
    const { requestId } = await approved();
    expect(JSON.parse((await revoke(url, requestId, FIONA_TOKEN, '--json')).stdout)).toEqual({ ok: true, requestId, status: 'revoked' });
    const again = await revoke(url, requestId, FIONA_TOKEN, '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: false, requestId, error: { code: 'not_revocable', status: 'revoked' } });
  });

  it('attack: an approver not eligible gets exit 1 not_found; an agent token is a configuration error (exit 2); nothing changes', async () => {
    const url = await live();
    const { requestId } = await approved();
    const oscar = await revoke(url, requestId, OSCAR_TOKEN);
    expect(oscar.code).toBe(1);
    expect(oscar.stderr).toContain('not revoked: not_found');
    const agent = await revoke(url, requestId, AGENT_TOKEN);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toContain('HTTP 403');
    expect((await requestView(f.gate, requestId))?.status).toBe('approved');
  });

  it('a consumed call: exit 1 already_consumed', async () => {
    const url = await live();
    const { requestId, callId } = await approved();
    const { token } = (await (await f.agent('GET', `/api/v1/requests/${requestId}/token`)).json()) as { token: string };
    await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(callId, token));
    const run = await revoke(url, requestId, FIONA_TOKEN);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('not revoked: already_consumed');
  });

  it('without a token, with a bad URL or an unreachable service: exit 2 with one clear line', async () => {
    const url = await live();
    expect(await revoke(url, 'r1', undefined)).toMatchObject({ code: 2 });
    expect((await revoke(url, 'r1', undefined)).stderr).toContain(APPROVER_TOKEN_ENV);
    expect((await revoke('ftp://x', 'r1', FIONA_TOKEN)).stderr).toContain('--url must be http');
    const down = await revoke('http://127.0.0.1:1', 'r1', FIONA_TOKEN);
    expect(down.code).toBe(2);
    expect(down.stderr).toContain('cannot reach http://127.0.0.1:1');
  });
});
