import { MemoryAuditLog, MemoryLedger } from '@countersign/core';
import { MemoryDefinitionStore } from '@countersign/core/catalog';
import { loadPolicy } from '@countersign/core/policy';
import { afterEach, describe, expect, it } from 'vitest';
import { browserSession } from '../testing/browser-session.ts';
import { FIONA_PASSWORD, makeServerFixture, ORIGIN, type ServerFixture, TEST_AUTH } from '../testing/server-fixture.ts';

// Two finance approvals for transfers (so "1 of 2" exists); deploys need one and expire in a minute.
const POLICY = `
version: 1
rules:
  - id: large-transfers
    description: Transfers move real money; two people from finance check each one.
    tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] }, required: 2, ttlSeconds: 900 }
  - id: deploys
    tool: deploy
    verdict: approve
    approval: { approvers: { roles: [finance], approvers: [dana] }, ttlSeconds: 60 }
`;
const FRANK = { id: 'frank', roles: ['finance'] };
const FIONA = { id: 'fiona', roles: ['finance'] };

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

async function propose(callId: string, args: unknown, tool = 'transfer', context?: string) {
  const res = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: callId, name: tool, arguments: args, ...(context === undefined ? {} : { context }) }]));
  const outcome = ((await res.json()) as { outcomes: Array<{ status: string; requestId: string; proposalId: string }> }).outcomes[0]!;
  expect(outcome.status).toBe('approval_required');
  return outcome;
}

async function approveBoth(requestId: string) {
  expect((await f.gate.approvals.decide(FRANK, { requestId, decision: 'approve' })).ok).toBe(true);
  expect((await f.gate.approvals.decide(FIONA, { requestId, decision: 'approve' })).ok).toBe(true);
}

async function page(requestId: string) {
  const browser = browserSession(f.app, ORIGIN);
  await browser.login('fiona', FIONA_PASSWORD);
  return (await browser.request('GET', `/requests/${requestId}`)).text();
}

/** The state banner's title and text, the call card's heading, and whether a countdown shows. */
function read(html: string) {
  // The text may hold <time> elements (shown in the viewer's zone by page.js): read it as text, the server's UTC.
  const banner = /<div class="state (\w+)" id="state-banner" data-state="(\w+)"><strong>([^<]*)<\/strong> <span>(.*?)<\/span><\/div>/.exec(html);
  const heading = /<h2 id="what-runs">([^<]*)<\/h2>/.exec(html)?.[1];
  return { tone: banner?.[1], state: banner?.[2], title: banner?.[3], text: banner?.[4]?.replace(/<[^>]+>/g, ''), heading, countdown: / · expires <span/.test(html) };
}

describe('request page: the banner and headings match the real state', () => {
  it('pending with no approvals: waiting, nothing ran, a countdown', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId } = await propose('c1', { amount: 500, to: 'alice' });
    expect(read(await page(requestId))).toEqual({
      tone: 'wait',
      state: 'pending',
      title: 'Waiting for approval',
      text: 'Needs 2 approvals before it can run. Nothing has run. Expires in 15 min (2026-06-01 12:15:00 UTC).',
      heading: 'What will run if approved',
      countdown: true,
    });
  });

  it('after the first of two approvals: "1 of 2 approvals recorded", never "approved"', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId } = await propose('c1', { amount: 500, to: 'alice' });
    expect((await f.gate.approvals.decide(FRANK, { requestId, decision: 'approve' })).ok).toBe(true);
    const html = await page(requestId);
    expect(read(html)).toMatchObject({ tone: 'wait', title: '1 of 2 approvals recorded', text: expect.stringMatching(/^Needs 1 more before it can run\. Nothing has run\./), countdown: true });
    expect(html).not.toMatch(/Approved —/);
  });

  it('approved: not run yet, with its deadline', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId } = await propose('c1', { amount: 500, to: 'alice' });
    await approveBoth(requestId);
    expect(read(await page(requestId))).toMatchObject({ tone: 'ok', state: 'approved', title: 'Approved — not run yet', heading: 'What will run', countdown: true });
  });

  it('consumed: "What ran", the result reported, no countdown', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId, proposalId } = await propose('c1', { amount: 500, to: 'alice' });
    await approveBoth(requestId);
    const token = ((await (await f.agent('GET', `/api/v1/requests/${requestId}/token`)).json()) as { token: string }).token;
    expect(await (await f.agent('POST', '/api/v1/dispatch', { proposalId, token })).json()).toMatchObject({ status: 'executed' });
    const state = read(await page(requestId));
    expect(state).toMatchObject({ tone: 'ok', state: 'consumed', title: 'Ran', heading: 'What ran', countdown: false });
    expect(state.text).toBe('This exact call ran at 2026-06-01 12:00:00 UTC. The tool reported success (2026-06-01 12:00:00 UTC).');
  });

  it('consumed without a reported result says so', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId, proposalId } = await propose('c1', { amount: 500, to: 'alice' });
    await approveBoth(requestId);
    const token = ((await (await f.agent('GET', `/api/v1/requests/${requestId}/token`)).json()) as { token: string }).token;
    // authorize consumes the approval; the runtime never reports back with complete.
    expect(await (await f.agent('POST', '/api/v1/authorize', { proposalId, token })).json()).toMatchObject({ status: 'authorized' });
    expect(read(await page(requestId))).toMatchObject({ state: 'consumed', heading: 'What ran', text: expect.stringMatching(/Its result was not reported\.$/) });
  });

  it('denied: who denied, nothing ran, no countdown', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId } = await propose('c1', { amount: 500, to: 'alice' });
    expect((await f.gate.approvals.decide(FRANK, { requestId, decision: 'deny', reason: 'no' })).ok).toBe(true);
    expect(read(await page(requestId))).toEqual({
      tone: 'stop',
      state: 'denied',
      title: 'Denied — nothing ran',
      text: 'Denied by frank at 2026-06-01 12:00:00 UTC. The call did not run and will not run.',
      heading: 'Nothing ran — the call that was asked for',
      countdown: false,
    });
  });

  it('replaced by an edit: reads as edited, not as a deny', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId } = await propose('c1', { amount: 500, to: 'alice' });
    const edited = await f.gate.approvals.decide(FIONA, { requestId, decision: 'approve', editedArguments: '{"amount":400,"to":"alice"}' });
    expect(edited.ok).toBe(true);
    const state = read(await page(requestId));
    expect(state).toMatchObject({ tone: 'neutral', title: 'Edited — replaced by another call', heading: 'Nothing ran — the call as first asked for', countdown: false });
    expect(state.title).not.toMatch(/Denied/);
  });

  it('revoked: nothing ran, no token will run', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId } = await propose('c1', { amount: 500, to: 'alice' });
    await approveBoth(requestId);
    expect((await f.gate.approvals.revoke(FIONA, requestId)).ok).toBe(true);
    expect(read(await page(requestId))).toMatchObject({ tone: 'stop', state: 'revoked', title: 'Revoked — nothing ran', heading: 'Nothing ran — the call that was asked for', countdown: false });
  });

  it('expired, never approved and approved-but-unused: both say nothing ran, no countdown', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const waiting = await propose('c1', { env: 'prod' }, 'deploy');
    const unused = await propose('c2', { env: 'staging' }, 'deploy');
    expect((await f.gate.approvals.decide(FIONA, { requestId: unused.requestId, decision: 'approve' })).ok).toBe(true);
    f.clock.advance(61_000);
    const never = read(await page(waiting.requestId));
    expect(never).toMatchObject({ tone: 'stop', state: 'expired', title: 'Expired — nothing ran', countdown: false, heading: 'Nothing ran — the call that was asked for' });
    expect(never.text).toBe('It expired at 2026-06-01 12:01:00 UTC with 0 of 1 approval. Nothing ran.');
    expect(read(await page(unused.requestId)).text).toMatch(/^It was approved but not run before it expired at .*Nothing ran, and its token is no longer accepted\.$/);
  });
});

describe('request page: why am I asked, and the agent\'s words', () => {
  it('shows the rule, its description and who must approve (and how many), and the context set apart with escapes', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId } = await propose('c1', { amount: 500, to: 'alice' }, 'transfer', 'Paying <b>invoice</b> 7\u202E as asked');
    const html = await page(requestId);
    expect(html).toContain('<code id="rule-id">large-transfers</code>');
    expect(html).toContain('<dd id="rule-description">Transfers move real money; two people from finance check each one.</dd>');
    expect(html).toContain('2 distinct approvers (0 recorded so far), from:<ul class="who"><li>anyone with the role <strong>finance</strong></li></ul>');
    const words = /<blockquote id="agent-context">([\s\S]*?)<\/blockquote>/.exec(html)?.[1];
    expect(words).toBe('Paying &lt;b&gt;invoice&lt;/b&gt; 7<span class="esc" title="U+202E RIGHT-TO-LEFT OVERRIDE">\\u202E</span> as asked');
    expect(html).not.toContain('\u202E');
    // Set apart from the page's own text, under a heading that says whose words they are.
    expect(html).toMatch(/<section class="card agent-words" aria-labelledby="agent-said">\n<h2 id="agent-said">What the agent said about this call<\/h2>/);
  });

  it('a call without context has no agent section; a rule without description says so; named approvers are listed', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId } = await propose('c1', { env: 'prod' }, 'deploy');
    const html = await page(requestId);
    expect(html).not.toContain('agent-words');
    expect(html).toContain('The rule has no description.');
    expect(html).toContain('<li>named approvers: <strong>dana</strong></li><li>anyone with the role <strong>finance</strong></li>');
  });

  it('marks the argument outside the pinned schema where it is, and puts arguments before digests', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId } = await propose('c1', { amount: '1000000', to: 'alice' });
    const html = await page(requestId);
    expect(html).toMatch(/<div class="arg unusual"><dt>amount<\/dt><dd><span class="value">&quot;1000000&quot;<\/span><span class="why-unusual"><span class="tag">outside schema: [^<]+<\/span>/);
    expect(html).toContain('<div class="arg"><dt>to</dt>');
    expect(html.indexOf('id="arguments-title"')).toBeLessThan(html.indexOf('id="args-digest"'));
    expect(html.indexOf('id="arguments-title"')).toBeLessThan(html.indexOf('id="canonical-arguments"'));
  });
});

describe('a definition review reads as one: about trusting a definition, not running a call', () => {
  it('pending, then denied: the tool stays disabled', async () => {
    const auth = { ...TEST_AUTH, approvers: [...TEST_AUTH.approvers, { id: 'ada', roles: ['admin'], password: 'ada reviews definitions', token: 'ada-token-aaaaaaaaaaaaaaaaaaaa' }] };
    f = makeServerFixture({ auth }, { ledger: new MemoryLedger(), audit: new MemoryAuditLog(), definitions: new MemoryDefinitionStore(), tools: {} });
    expect((await f.agent('PUT', '/api/v1/tools', { tools: [{ name: 'transfer', inputSchema: { type: 'object' } }] })).status).toBe(200);
    const refused = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'c1', name: 'transfer', arguments: { amount: 5 } }]));
    const reviewId = ((await refused.json()) as { outcomes: Array<{ reviewRequestId: string }> }).outcomes[0]!.reviewRequestId;
    const browser = browserSession(f.app, ORIGIN);
    await browser.login('ada', 'ada reviews definitions');
    const pending = read(await (await browser.request('GET', `/requests/${reviewId}`)).text());
    expect(pending).toMatchObject({ state: 'pending', title: 'Waiting for approval', countdown: true });
    expect(pending.text).toMatch(/^Needs 1 more approval before the new definition is trusted; until then calls to the tool are refused\./);
    expect((await f.send('POST', '/api/v1/decisions', 'ada-token-aaaaaaaaaaaaaaaaaaaa', { requestId: reviewId, decision: 'deny' })).status).toBe(200);
    expect(read(await (await browser.request('GET', `/requests/${reviewId}`)).text())).toMatchObject({
      tone: 'stop',
      title: 'Denied — the tool stays disabled',
      countdown: false,
    });
  });
});
