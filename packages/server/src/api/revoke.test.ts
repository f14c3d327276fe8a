import { requestView } from '@countersign/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; status?: string } }).error;
const statusOf = async (requestId: string) => (await requestView(f.gate, requestId))?.status;

/** A transfer fiona approved; the agent holds its token but has not dispatched it. */
async function approvedTransfer() {
  const proposed = await f.proposeTransfer();
  expect((await f.fiona('POST', '/api/v1/decisions', { requestId: proposed.requestId, decision: 'approve' })).status).toBe(200);
  const res = await f.agent('GET', `/api/v1/requests/${proposed.requestId}/token`);
  const { token } = (await res.json()) as { token: string };
  return { ...proposed, token };
}

describe('POST /decisions with decision "revoke"', () => {
  it('withdraws an approved, unused call: the token already fetched no longer runs it, authorize answers revoked', async () => {
    f = makeServerFixture();
    const { requestId, proposalId, token } = await approvedTransfer();
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'revoke' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { request: { status: string } }).request.status).toBe('revoked');
    expect(await statusOf(requestId)).toBe('revoked');

    const dispatched = (await (await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody('call-1', token))).json()) as { status: string; reason?: string };
    expect(dispatched).toMatchObject({ status: 'not_approved', reason: 'approval_revoked' });
    const authorized = (await (await f.agent('POST', '/api/v1/authorize', { proposalId })).json()) as { status: string; reason?: string };
    expect(authorized).toMatchObject({ status: 'not_approved', reason: 'approval_revoked' });
    const again = await f.agent('GET', `/api/v1/requests/${requestId}/token`);
    expect(again.status).toBe(409);
    expect((await errorOf(again)).status).toBe('revoked');
    expect(f.executions).toHaveLength(0);

    const audit = await f.audit.read();
    expect(audit.some((r) => r.type === 'revocation' && 'actor' in r && r.actor === 'fiona')).toBe(true);
  });

  it('withdraws a pending request too (core semantics): nobody can approve it afterwards', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'revoke' })).status).toBe(200);
    const approve = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' });
    expect(approve.status).toBe(409);
    expect(await statusOf(requestId)).toBe('revoked');
  });

  it('attack: an agent token cannot revoke (403), the approval stands and still runs', async () => {
    f = makeServerFixture();
    const { requestId, token } = await approvedTransfer();
    const res = await f.agent('POST', '/api/v1/decisions', { requestId, decision: 'revoke' });
    expect(res.status).toBe(403);
    expect(await statusOf(requestId)).toBe('approved');
    const dispatched = (await (await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody('call-1', token))).json()) as { status: string };
    expect(dispatched.status).toBe('executed');
  });

  it('attack: an approver not eligible for the request cannot revoke it; it reads as not found (404)', async () => {
    f = makeServerFixture();
    const { requestId } = await approvedTransfer();
    const res = await f.oscar('POST', '/api/v1/decisions', { requestId, decision: 'revoke' });
    expect(res.status).toBe(404);
    expect((await errorOf(res)).code).toBe('not_found');
    expect(await statusOf(requestId)).toBe('approved');
    // The same answer as for a request that does not exist.
    const missing = await f.oscar('POST', '/api/v1/decisions', { requestId: 'no-such-request', decision: 'revoke' });
    expect(missing.status).toBe(404);
  });

  it('attack: a consumed approval cannot be revoked (409 already_consumed); the record of what ran stays', async () => {
    f = makeServerFixture();
    const { requestId, token } = await approvedTransfer();
    expect(((await (await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody('call-1', token))).json()) as { status: string }).status).toBe('executed');
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'revoke' });
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toMatchObject({ code: 'already_consumed', status: 'consumed' });
    expect(await statusOf(requestId)).toBe('consumed');
  });

  it('a denied or already revoked request is not revocable (409 not_revocable with its status)', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'deny' });
    const denied = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'revoke' });
    expect(denied.status).toBe(409);
    expect(await errorOf(denied)).toMatchObject({ code: 'not_revocable', status: 'denied' });

    const other = await f.proposeTransfer({ amount: 700, to: 'bob' }, 'call-2');
    await f.fiona('POST', '/api/v1/decisions', { requestId: other.requestId, decision: 'revoke' });
    const twice = await f.fiona('POST', '/api/v1/decisions', { requestId: other.requestId, decision: 'revoke' });
    expect(await errorOf(twice)).toMatchObject({ code: 'not_revocable', status: 'revoked' });
  });

  it.each([
    ['a reason', { reason: 'changed my mind' }],
    ['edited arguments', { editedArguments: { amount: 1 } }],
  ])('a revocation with %s is refused (400) and changes nothing', async (_name, extra) => {
    f = makeServerFixture();
    const { requestId } = await approvedTransfer();
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'revoke', ...extra });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe('invalid_request');
    expect(await statusOf(requestId)).toBe('approved');
  });
});
