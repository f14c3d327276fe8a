import type { AddressInfo } from 'node:net';
import { createClient } from '@countersign/client';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserTestsRun, signedInContext } from '../testing/chromium.ts';
import { AGENT_TOKEN, FIONA_PASSWORD, makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';

// Edit-and-approve end to end: an approver edits the call on the request page in
// Chromium; the agent, on @countersign/client, learns of the edit from the server and
// runs the edited call, with the edited arguments, once. The original never runs.

let f: ServerFixture;
let server: ServerType;
let base: string;

const skip = !browserTestsRun;

beforeAll(async () => {
  if (skip) return;
  f = makeServerFixture({ publicOrigin: undefined });
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: f.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  if (skip) return;
  await f?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it.skipIf(skip)('edit-and-approve through the page: the agent (client) runs the edited call with the edited arguments, once', { timeout: 60_000 }, async () => {
  const client = createClient({ baseUrl: base, token: AGENT_TOKEN });
  const [proposed] = await client.propose({
    runId: 'run-edit',
    sessionId: 'session-1',
    principal: 'user:42',
    toolCalls: [{ id: 'call-edit-1', name: 'transfer', arguments: '{"to":"mallory","amount":5000}' }],
  });
  if (proposed?.status !== 'approval_required') throw new Error(`expected approval_required, got ${JSON.stringify(proposed)}`);
  const waiting = client.waitForDecision(proposed.requestId, { timeoutMs: 30_000 });

  const context = await signedInContext(base, 'fiona', FIONA_PASSWORD);
  context.setDefaultTimeout(15_000);
  try {
    const page = await context.newPage();
    await page.goto(`${base}/requests/${proposed.requestId}`);
    await page.getByText('Edit the arguments, then approve').click();
    await page.locator('#edited-arguments').fill('{"to": "alice", "amount": 500}');
    await page.getByRole('button', { name: 'Approve edited call' }).click();
    await page.waitForURL(/\/requests\/[^/?]+\?done=edited$/);
    const editedRequestId = new URL(page.url()).pathname.split('/').pop()!;

    // The original reads "Edited — replaced by <link>", never "denied", and the link leads to the edited request.
    await page.goto(`${base}/requests/${proposed.requestId}`);
    expect(await page.locator('#edited-banner').textContent()).toContain('Edited — replaced by request');
    expect(await page.locator('.lead .badge').textContent()).toBe('edited');
    expect(await page.locator('.badge.denied').count()).toBe(0);
    await page.locator('#edited-link').click();
    await page.waitForURL(`${base}/requests/${editedRequestId}`);
    expect(JSON.parse((await page.locator('#arguments').textContent()) ?? '')).toEqual({ amount: 500, to: 'alice' });

    // The agent's wait answers edited and names the call to run instead.
    const decided = await waiting;
    expect(decided).toMatchObject({ ok: true, status: 'edited', editedRequestId });
    if (!decided.ok || decided.status !== 'edited') throw new Error('expected an edit');
    const token = await client.token(decided.editedRequestId);
    if (!token.ok) throw new Error(`expected a token, got ${JSON.stringify(token)}`);
    const outcome = await client.authorize({ proposalId: decided.editedProposalId, token: token.token, callId: decided.editedCallId });
    if (outcome.status !== 'authorized') throw new Error(`expected authorized, got ${JSON.stringify(outcome)}`);
    // The agent runs the grant's arguments: the approver's edit, byte for byte.
    expect(outcome.grant.canonicalArgs).toBe('{"amount":500,"to":"alice"}');
    expect(await client.complete(outcome.grant, { status: 'succeeded', result: { transferred: 500 } })).toMatchObject({ ok: true });
    // Once only; the original cannot run.
    expect(await client.authorize({ proposalId: decided.editedProposalId, token: token.token })).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect(await client.authorize({ proposalId: proposed.proposalId, token: token.token })).toMatchObject({ status: 'not_approved' });
    expect(await client.authorize({ proposalId: proposed.proposalId })).toMatchObject({ status: 'not_approved', reason: 'approval_edited' });
    expect(await client.callStatus(decided.editedProposalId)).toMatchObject({ ok: true, call: { state: 'succeeded' } });
    expect(await client.callStatus(proposed.proposalId)).toMatchObject({ ok: true, call: { state: 'proposed', request: { status: 'edited' } } });
  } finally {
    await context.close();
  }
});
