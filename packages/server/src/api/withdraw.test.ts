import { requestView } from '@countersign/core/testing';
import { loadPolicy } from '@countersign/core/policy';
import { afterEach, describe, expect, it } from 'vitest';
import { browserSession } from '../testing/browser-session.ts';
import { FIONA_PASSWORD, makeServerFixture, ORIGIN, type ServerFixture, TEST_AUTH } from '../testing/server-fixture.ts';

// Transfers need two of finance: fiona and frank both qualify; oscar is an approver, not for transfers.
const POLICY = `
version: 1
rules:
  - id: large-transfers
    tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] }, required: 2, ttlSeconds: 900 }
`;
const FRANK_TOKEN = 'frank-token-kkkkkkkkkkkkkkkk';
const AUTH = { ...TEST_AUTH, approvers: [...TEST_AUTH.approvers, { id: 'frank', roles: ['finance'], password: 'frank-password', token: FRANK_TOKEN }] };

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error;
const decisionsOf = async (requestId: string) => (await requestView(f.gate, requestId))?.request.decisions.map((d) => d.approver);
const frank = (body: unknown) => f.send('POST', '/api/v1/decisions', FRANK_TOKEN, body);

async function oneOfTwo() {
  f = makeServerFixture({ auth: AUTH }, { policy: loadPolicy(POLICY, 'yaml') });
  const { requestId, proposalId } = await f.proposeTransfer();
  expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' })).status).toBe(200);
  return { requestId, proposalId };
}

describe('POST /decisions with decision "withdraw"', () => {
  it('takes back my approval of a 1-of-2 request: still pending, 0 of 2, audited; I may approve again', async () => {
    const { requestId } = await oneOfTwo();
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'withdraw' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ request: { status: 'pending', approvals: 0, requiredApprovals: 2 } });
    expect((await f.audit.read()).at(-1)).toMatchObject({ type: 'withdrawal', actor: 'fiona', requestId });
    // Frank's approval alone is one of two now; fiona's again completes it.
    expect(await (await frank({ requestId, decision: 'approve' })).json()).toMatchObject({ request: { status: 'pending' } });
    expect(await (await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' })).json()).toMatchObject({ request: { status: 'approved' } });
  });

  it("attack: withdrawing someone else's approval — frank (eligible, no approval of his) gets 409 no_approval, oscar 404; fiona's stands", async () => {
    const { requestId } = await oneOfTwo();
    const byFrank = await frank({ requestId, decision: 'withdraw' });
    expect(byFrank.status).toBe(409);
    expect((await errorOf(byFrank)).code).toBe('no_approval');
    const byOscar = await f.oscar('POST', '/api/v1/decisions', { requestId, decision: 'withdraw' });
    expect(byOscar.status).toBe(404);
    // An agent is no approver at all.
    expect((await f.agent('POST', '/api/v1/decisions', { requestId, decision: 'withdraw' })).status).toBe(403);
    expect(await decisionsOf(requestId)).toEqual(['fiona']);
  });

  it('attack: withdrawing twice — the second is 409 no_approval', async () => {
    const { requestId } = await oneOfTwo();
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'withdraw' })).status).toBe(200);
    const again = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'withdraw' });
    expect(again.status).toBe(409);
    expect((await errorOf(again)).code).toBe('no_approval');
  });

  it('attack: withdrawing after the request is approved, then after it ran — 409 already_decided; the token still runs once', async () => {
    const { requestId } = await oneOfTwo();
    expect(await (await frank({ requestId, decision: 'approve' })).json()).toMatchObject({ request: { status: 'approved' } });
    const late = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'withdraw' });
    expect(late.status).toBe(409);
    expect((await errorOf(late)).code).toBe('already_decided');
    const { token } = (await (await f.agent('GET', `/api/v1/requests/${requestId}/token`)).json()) as { token: string };
    expect(((await (await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody('call-1', token))).json()) as { status: string }).status).toBe('executed');
    const afterRun = await frank({ requestId, decision: 'withdraw' });
    expect(afterRun.status).toBe(409);
    expect((await errorOf(afterRun)).code).toBe('already_decided');
  });

  it('a withdrawal with a reason is refused (400) and changes nothing', async () => {
    const { requestId } = await oneOfTwo();
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'withdraw', reason: 'oops' });
    expect(res.status).toBe(400);
    expect(await decisionsOf(requestId)).toEqual(['fiona']);
  });

  it('concurrent withdraw and the completing approval: exactly one takes effect, and the answers agree with the state', async () => {
    for (let round = 0; round < 5; round++) {
      const { requestId } = await oneOfTwo();
      const [withdrawn, approved] = await Promise.all([f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'withdraw' }), frank({ requestId, decision: 'approve' })]);
      expect(approved.status).toBe(200);
      const view = await requestView(f.gate, requestId);
      if (withdrawn.status === 200) expect([view?.status, await decisionsOf(requestId)]).toEqual(['pending', ['frank']]);
      else expect([withdrawn.status, view?.status, await decisionsOf(requestId)]).toEqual([409, 'approved', ['fiona', 'frank']]);
      await f.close();
    }
    f = makeServerFixture();
  });
});

describe('request page: "Withdraw my approval"', () => {
  it('shows for my approval of a pending 1-of-2 request, withdraws it, and is gone for others and afterwards', async () => {
    const { requestId } = await oneOfTwo();
    const browser = browserSession(f.app, ORIGIN);
    await browser.login('fiona', FIONA_PASSWORD);
    const page = await (await browser.request('GET', `/requests/${requestId}`)).text();
    expect(page).toContain('id="withdraw-form"');
    const posted = await browser.request('POST', `/requests/${requestId}/decision`, { form: { csrf: browser.csrfFrom(page)!, action: 'withdraw' } });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe(`/requests/${requestId}?done=withdrawn`);
    const after = await (await browser.request('GET', posted.headers.get('location')!)).text();
    expect(after).toContain('You withdrew your approval.');
    expect(after).not.toContain('id="withdraw-form"');
    expect(after).toContain('Approve this call');
    expect(await decisionsOf(requestId)).toEqual([]);
  });
});
