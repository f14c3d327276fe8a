import type { Grant } from '@countersign/core';
import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, type ServerFixture } from '../../testing/server-fixture.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const RESULT = { content: [{ type: 'text', text: '2 runs failed last week' }], structuredContent: { failed: 2 } };

/** A small transfer (allowed), authorized and completed with RESULT over HTTP. */
async function completedCall(callId = 'call-r', runId = 'run-r'): Promise<Grant> {
  const res = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: callId, name: 'transfer', arguments: { amount: 5, to: 'bob' } }], runId));
  const { outcomes } = (await res.json()) as { outcomes: Array<{ proposalId: string }> };
  const authorized = (await (await f.agent('POST', '/api/v1/authorize', { proposalId: outcomes[0]!.proposalId })).json()) as { grant: Grant };
  const done = await f.agent('POST', '/api/v1/complete', { grant: authorized.grant, completion: { status: 'succeeded', result: RESULT } });
  expect(done.status).toBe(200);
  return authorized.grant;
}

describe('POST /runs/:runId/relayed (CASA check 5)', () => {
  it('a faithful relay answers ok; a tampered one relay_refused with each failure, audited', async () => {
    f = makeServerFixture();
    const grant = await completedCall();
    const ok = await f.agent('POST', '/api/v1/runs/run-r/relayed', { toolMessages: [{ callId: 'call-r', content: '2 runs failed last week' }] });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, checked: 1 });
    const parts = await f.agent('POST', '/api/v1/runs/run-r/relayed', { toolMessages: [{ callId: 'call-r', content: [{ type: 'text', text: '2 runs failed last week' }] }] });
    expect(await parts.json()).toEqual({ ok: true, checked: 1 });

    const tampered = await f.agent('POST', '/api/v1/runs/run-r/relayed', {
      toolMessages: [
        { callId: 'call-r', content: '0 runs failed last week' },
        { callId: 'call-ghost', content: 'x' },
      ],
    });
    expect(tampered.status).toBe(200);
    expect(await tampered.json()).toMatchObject({
      ok: false,
      reason: 'relay_refused',
      failures: [
        { callId: 'call-r', reason: 'result_mismatch', proposalId: grant.proposalId },
        { callId: 'call-ghost', reason: 'unknown_call' },
      ],
    });
    const records = (await f.audit.read()).filter((r) => r.detail?.status === 'relay_refused');
    expect(records.map((r) => [r.callId, r.reason])).toEqual([
      ['call-r', 'result_mismatch'],
      ['call-ghost', 'unknown_call'],
    ]);
  });

  it("another agent's run reads as unknown; approvers and anonymous callers are refused", async () => {
    f = makeServerFixture();
    await completedCall();
    const body = { toolMessages: [{ callId: 'call-r', content: '2 runs failed last week' }] };
    expect(await (await f.rival('POST', '/api/v1/runs/run-r/relayed', body)).json()).toMatchObject({
      ok: false,
      reason: 'relay_refused',
      failures: [{ callId: 'call-r', reason: 'unknown_call' }],
    });
    expect((await f.fiona('POST', '/api/v1/runs/run-r/relayed', body)).status).toBe(403);
    expect((await f.send('POST', '/api/v1/runs/run-r/relayed', undefined, body)).status).toBe(401);
  });

  it('bodies the schema refuses are typed 400s; nothing is audited for them', async () => {
    f = makeServerFixture();
    await completedCall();
    const before = (await f.audit.read()).length;
    const cases: Array<[unknown, string]> = [
      [{ toolMessages: [{ callId: 'call-r' }] }, 'invalid_request'],
      [{ toolMessages: [{ callId: '', content: 'x' }] }, 'invalid_request'],
      [{ toolMessages: [{ callId: 'call-r', content: 'x', extra: 1 }] }, 'unknown_field'],
      [{ toolMessages: 'x' }, 'invalid_request'],
      [{}, 'invalid_request'],
      ['{"toolMessages":[{"callId":"call-r","content":"a","content":"b"}]}', 'invalid_json_value'],
    ];
    for (const [body, code] of cases) {
      const res = await f.agent('POST', '/api/v1/runs/run-r/relayed', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code, JSON.stringify(body)).toBe(code);
    }
    const longRun = await f.agent('POST', `/api/v1/runs/${'r'.repeat(300)}/relayed`, { toolMessages: [] });
    expect(longRun.status).toBe(400);
    const controlRun = await f.agent('POST', '/api/v1/runs/run%00x/relayed', { toolMessages: [{ callId: 'c', content: 'x' }] });
    expect(controlRun.status).toBe(400);
    expect((await f.audit.read()).length).toBe(before);
  });
});
