import { requestView } from '@countersign/core/testing';
import { type AuditEvent, type AuditLog, MemoryAuditLog } from '@countersign/core/audit';
import { loadPolicy } from '@countersign/core/policy';
import { afterEach, describe, expect, it } from 'vitest';
import { browserSession } from '../testing/browser-session.ts';
import { FIONA_PASSWORD, makeServerFixture, ORIGIN, PROXY_SECRET, type ServerFixture, TEST_AUTH } from '../testing/server-fixture.ts';
import type { ApprovalView } from '../views/request-views.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const read = async <T>(res: Response) => (await res.json()) as T;
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

/** Finance approves ordinary transfers; large ones need two CFOs; huge ones are denied. */
const TIERED = loadPolicy(
  `
version: 1
rules:
  - id: huge-transfers
    tool: transfer
    when: { type: object, properties: { amount: { type: number, minimum: 10000000 } }, required: [amount] }
    verdict: deny
  - id: large-transfers
    tool: transfer
    when: { type: object, properties: { amount: { type: number, minimum: 10000 } }, required: [amount] }
    verdict: approve
    approval: { approvers: { roles: [cfo] }, required: 2, ttlSeconds: 120 }
  - id: transfers
    tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance], principalSelf: false }, ttlSeconds: 600 }
`,
  'yaml',
);

/** An audit log that can be switched off (an outage) mid-test. */
function switchableAudit(): AuditLog & { down: boolean } {
  const inner = new MemoryAuditLog();
  const log = {
    down: false,
    append: async (event: AuditEvent) => {
      if (log.down) throw new Error('audit store down');
      return inner.append(event);
    },
    read: (opts?: { afterSeq?: number; limit?: number }) => inner.read(opts),
    head: () => inner.head(),
  };
  return log;
}

describe('POST /decisions: approve-with-edits gets the edited call its own verdict', () => {
  it('500 → 1,000,000: the edited request needs two CFOs; the finance editor cannot see or approve it', async () => {
    f = makeServerFixture({}, { policy: TIERED });
    const { requestId } = await f.proposeTransfer();
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', editedArguments: { amount: 1_000_000, to: 'alice' } });
    expect(res.status).toBe(200);
    const body = await read<{ request: ApprovalView; editedRequest: ApprovalView }>(res);
    expect(body.editedRequest).toMatchObject({ status: 'pending', ruleId: 'large-transfers', requiredApprovals: 2, approvals: 0 });
    expect((await f.fiona('GET', `/api/v1/approvals/${body.editedRequest.requestId}`)).status).toBe(404);
    const again = await f.fiona('POST', '/api/v1/decisions', { requestId: body.editedRequest.requestId, decision: 'approve' });
    expect(again.status).toBe(404);
  });

  it('an edit policy denies → 403 edit_denied_by_policy; the original stays pending', async () => {
    f = makeServerFixture({}, { policy: TIERED });
    const { requestId } = await f.proposeTransfer();
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', editedArguments: { amount: 50_000_000, to: 'alice' } });
    expect(res.status).toBe(403);
    expect((await errorOf(res)).code).toBe('edit_denied_by_policy');
    expect(await read<ApprovalView>(await f.fiona('GET', `/api/v1/approvals/${requestId}`))).toMatchObject({ status: 'pending' });
  });

  it('an edit that breaks the tool input schema → 400 invalid_arguments naming the problems', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', editedArguments: { amount: 'all of it', to: 42 } });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toContain('/amount');
    expect(error.message).toContain('/to');
  });
});

describe('principals in the auth file: an approver never approves calls acting for themself', () => {
  const auth = {
    ...TEST_AUTH,
    approvers: TEST_AUTH.approvers.map((a) => (a.id === 'fiona' ? { ...a, principals: ['user:42'] } : a)),
  };

  it('bearer: fiona, who is principal user:42, neither sees nor decides its transfer', async () => {
    f = makeServerFixture({ auth });
    const { requestId } = await f.proposeTransfer();
    expect((await read<{ approvals: ApprovalView[] }>(await f.fiona('GET', '/api/v1/approvals'))).approvals).toEqual([]);
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' })).status).toBe(404);
    expect((await requestView(f.gate, requestId))?.request.decisions).toEqual([]);
  });

  it('trusted proxy: the principals come from the auth file, whatever roles the proxy sends', async () => {
    f = makeServerFixture({ auth });
    const { requestId } = await f.proposeTransfer();
    const headers = { 'x-auth-user': 'fiona', 'x-auth-roles': 'finance', 'x-proxy-secret': PROXY_SECRET };
    const list = await f.send('GET', '/api/v1/approvals', undefined, undefined, headers);
    expect(list.status).toBe(200);
    expect((await read<{ approvals: ApprovalView[] }>(list)).approvals).toEqual([]);
    expect((await f.send('GET', `/api/v1/approvals/${requestId}`, undefined, undefined, headers)).status).toBe(404);
    // The same user without the mapping (another id) would see it: the filter is the mapping, not the proxy.
    const felix = { ...headers, 'x-auth-user': 'felix' };
    expect((await read<{ approvals: ApprovalView[] }>(await f.send('GET', '/api/v1/approvals', undefined, undefined, felix))).approvals).toHaveLength(1);
  });

  it('approver id equal to the principal counts too; another approver still may', async () => {
    f = makeServerFixture({
      auth: { ...TEST_AUTH, approvers: [...TEST_AUTH.approvers, { id: 'user:42', roles: ['finance'], token: 'user42-token-zzzzzzzzzz' }] },
    });
    const { requestId } = await f.proposeTransfer();
    expect((await f.send('POST', '/api/v1/decisions', 'user42-token-zzzzzzzzzz', { requestId, decision: 'approve' })).status).toBe(404);
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' })).status).toBe(200);
  });
});

describe('a decision whose audit record cannot be written', () => {
  it('API: 200 with auditRecorded:false, the request approved, never 503', async () => {
    const audit = switchableAudit();
    f = makeServerFixture({}, { audit });
    const { requestId } = await f.proposeTransfer();
    audit.down = true;
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' });
    expect(res.status).toBe(200);
    expect(await read<{ request: ApprovalView; auditRecorded?: boolean }>(res)).toMatchObject({ auditRecorded: false, request: { status: 'approved' } });
  });

  it('page: the approver is told the decision stands but the audit log missed it', async () => {
    const audit = switchableAudit();
    f = makeServerFixture({}, { audit });
    const { requestId } = await f.proposeTransfer();
    const browser = browserSession(f.app, ORIGIN);
    await browser.login('fiona', FIONA_PASSWORD);
    const csrf = browser.csrfFrom(await (await browser.request('GET', `/requests/${requestId}`)).text());
    audit.down = true;
    const res = await browser.request('POST', `/requests/${requestId}/decision`, { form: { csrf: csrf!, action: 'approve' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/requests/${requestId}?done=approved&audit=missing`);
    const page = await (await browser.request('GET', res.headers.get('location')!)).text();
    expect(page).toContain('Your approval was recorded.');
    expect(page).toContain('the audit log could not record this decision');
  });
});

describe('page: an edit that needs other approvers', () => {
  it('stays on the original request and says the edit waits for its own approvers', async () => {
    f = makeServerFixture({}, { policy: TIERED });
    const { requestId } = await f.proposeTransfer();
    const browser = browserSession(f.app, ORIGIN);
    await browser.login('fiona', FIONA_PASSWORD);
    const csrf = browser.csrfFrom(await (await browser.request('GET', `/requests/${requestId}`)).text());
    const res = await browser.request('POST', `/requests/${requestId}/decision`, {
      form: { csrf: csrf!, action: 'edit', arguments: '{"amount":1000000,"to":"alice"}' },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/requests/${requestId}?done=edited_pending`);
    const page = await (await browser.request('GET', res.headers.get('location')!)).text();
    expect(page).toContain('waits for the approvals its own policy rule requires');
  });
});
