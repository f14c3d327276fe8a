import { loadPolicy } from '@countersign/core/policy';
import { afterEach, describe, expect, it } from 'vitest';
import { browserSession } from '../testing/browser-session.ts';
import { AUDITOR_ROLE } from '../audit/visible-records.ts';
import { FIONA_PASSWORD, makeServerFixture, ORIGIN, PROXY_SECRET, type ServerFixture, TEST_AUTH } from '../testing/server-fixture.ts';

const POLICY = `
version: 1
rules:
  - id: large-transfers
    description: Transfers move real money; finance checks each one.
    tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] } }
  - id: deploys
    tool: deploy
    verdict: approve
    approval: { approvers: { roles: [finance] } }
`;

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

async function propose(callId: string, args: unknown, tool = 'transfer') {
  const res = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: callId, name: tool, arguments: args }]));
  return ((await res.json()) as { outcomes: Array<{ requestId: string; proposalId: string }> }).outcomes[0]!;
}

async function signedIn() {
  const browser = browserSession(f.app, ORIGIN);
  await browser.login('fiona', FIONA_PASSWORD);
  return browser;
}

/** The request ids of the list's rows, in order. */
const rowIds = (html: string) => [...html.matchAll(/<tr data-request="([^"]+)">/g)].map((m) => m[1]);

describe('the request list', () => {
  it('newest first, each with a one-line summary of what differs, the rule and its description, amounts grouped', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const first = await propose('c1', { amount: 1500000, to: 'alice' });
    f.clock.advance(1000);
    const second = await propose('c2', { amount: 1500000, to: 'acct-\u202E4321' });
    const html = await (await (await signedIn()).request('GET', '/')).text();
    expect(rowIds(html)).toEqual([second.requestId, first.requestId]);
    // Same amount in both: only the recipient tells them apart, escaped like everywhere else.
    expect(html).toContain('<span class="call-summary"><span class="field"><span class="key">to</span>: &quot;acct-<span class="esc" title="U+202E RIGHT-TO-LEFT OVERRIDE">\\u202E</span>4321&quot;</span></span>');
    expect(html).toContain('<span class="call-summary"><span class="field"><span class="key">to</span>: &quot;alice&quot;</span></span>');
    expect(html).not.toContain('\u202E');
    expect(html).toContain('<code class="rule">large-transfers</code> <span class="rule-description">Transfers move real money; finance checks each one.</span>');
  });

  it('groups amounts in a summary when they differ', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    await propose('c1', { amount: 1500000, to: 'alice' });
    await propose('c2', { amount: 150000, to: 'alice' });
    const html = await (await (await signedIn()).request('GET', '/')).text();
    expect(html).toContain('<span class="key">amount</span>: 1,500,000</span>');
    expect(html).toContain('<span class="key">amount</span>: 150,000</span>');
  });

  it('filters by tool (a tool not on the list is ignored, not echoed) and by status', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const transfer = await propose('c1', { amount: 500, to: 'alice' });
    const deploy = await propose('c2', { env: 'prod' }, 'deploy');
    const browser = await signedIn();
    expect(rowIds(await (await browser.request('GET', '/?tool=deploy')).text())).toEqual([deploy.requestId]);
    const unknown = await (await browser.request('GET', '/?tool=%3Cscript%3Enope')).text();
    expect(rowIds(unknown).sort()).toEqual([transfer.requestId, deploy.requestId].sort());
    expect(unknown).not.toContain('nope');
    const filter = await (await browser.request('GET', '/?tool=transfer')).text();
    expect(filter).toContain('<option value="transfer" selected>transfer</option>');
    expect(filter).toContain('<a href="/?status=denied&amp;tool=transfer">denied</a>');
    expect(rowIds(await (await browser.request('GET', '/?status=denied&tool=transfer')).text())).toEqual([]);
  });

  it('names the who-column by what its rows hold: Principal for calls, Registered by for definition reviews, both labelled when mixed', async () => {
    const ADA = { id: 'ada', roles: ['admin', 'finance'], password: 'ada reviews definitions', token: 'ada-token-aaaaaaaaaaaaaaaaaaaaa' };
    f = makeServerFixture({ auth: { ...TEST_AUTH, approvers: [...TEST_AUTH.approvers, ADA] } }, { policy: loadPolicy(POLICY, 'yaml') });
    const ada = browserSession(f.app, ORIGIN);
    await ada.login('ada', ADA.password);
    const header = async () => /<th scope="col" id="who-header">([^<]*)<\/th>/.exec(await (await ada.request('GET', '/')).text())?.[1];
    const transfer = await propose('c1', { amount: 500, to: 'alice' });
    expect(await header()).toBe('Principal');

    const send = { name: 'send_email', description: 'Sends an email.', inputSchema: { type: 'object', properties: { to: { type: 'string' } } } };
    expect((await f.agent('PUT', '/api/v1/tools', { tools: [send] })).status).toBe(200);
    expect((await propose('c2', { to: 'a@example.com' }, 'send_email')).requestId).toBeUndefined(); // rejected: its definition waits for review
    const mixed = await (await ada.request('GET', '/')).text();
    expect(await header()).toBe('Principal / registered by');
    const cells = [...mixed.matchAll(/<td data-label="(Principal|Registered by)" class="text id">([\s\S]*?)<\/td>/g)].map((m) => [m[1], m[2]]);
    expect(cells).toContainEqual(['Registered by', expect.stringMatching(/^<span class="wide-only">registered by <\/span>agent /)]);
    expect(cells).toContainEqual(['Principal', expect.not.stringContaining('registered by')]);

    expect((await f.send('POST', '/api/v1/decisions', ADA.token, { requestId: transfer.requestId, decision: 'deny' })).status).toBe(200);
    expect(await header()).toBe('Registered by');
    expect(await (await ada.request('GET', '/')).text()).not.toContain('wide-only');
  });

  it('works without JavaScript (a Refresh link) and names its live stream; the script is same-origin and the CSP allows only that', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const browser = await signedIn();
    const res = await browser.request('GET', '/');
    const html = await res.text();
    expect(html).toContain('<a href="/?status=pending" id="refresh-link">Refresh</a>');
    expect(html).toMatch(/<section id="requests" data-live="\/events\/approvals\?status=pending&amp;version=[0-9a-f]{32}"/);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'; connect-src 'self'");
    const script = await browser.request('GET', '/assets/page.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    const text = await script.text();
    expect(text).toContain("new EventSource(url)");
    expect(text).not.toMatch(/innerHTML|eval\(|new Function/);
  });
});

describe('GET /events/approvals: the list changed', () => {
  it('says "changed" when a request joins the approver\'s list after the page was rendered, and needs a session', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const browser = await signedIn();
    const version = /version=([0-9a-f]{32})/.exec(await (await browser.request('GET', '/')).text())![1]!;
    expect((await f.send('GET', `/events/approvals?version=${version}`, undefined)).status).toBe(303);
    const stream = await browser.request('GET', `/events/approvals?status=pending&version=${version}`);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = stream.body!.getReader();
    await propose('c1', { amount: 500, to: 'alice' });
    let text = '';
    const decoder = new TextDecoder();
    while (!text.includes('event: changed')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toMatch(/event: changed\ndata: [0-9a-f]{32}\n/);
    await reader.cancel();
    // A stale version gets "changed" at once.
    const stale = await (await browser.request('GET', '/events/approvals?status=pending&version=stale')).text();
    expect(stale).toMatch(/^event: changed\ndata: [0-9a-f]{32}/);
  }, 20_000);
});

describe('the audit page', () => {
  it('newest first, request and call ids are links, verdict and rule shown, digests shortened', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId, proposalId } = await propose('c1', { amount: 500, to: 'alice' });
    // One record per call (format 2): two more calls so there is an order to check.
    for (const callId of ['c2', 'c3']) await propose(callId, { amount: 600, to: 'bob' });
    const html = await (await (await signedIn()).request('GET', '/audit')).text();
    const seqs = [...html.matchAll(/<tr data-seq="(\d+)">/g)].map((m) => Number(m[1]));
    expect(seqs.length).toBeGreaterThan(2);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(html).toContain(`href="/requests/${requestId}"`);
    expect(html).toContain(`href="/calls/${proposalId}"`);
    expect(html).toContain('<span class="event">proposal</span> <span class="badge outcome approve">approve</span>');
    expect(html).toContain('<code>large-transfers</code>');
    const digest = /<code class="nowrap" title="([0-9a-f]{64})">([^<]+)<\/code>/.exec(html)!;
    expect(digest[2]).toBe(`${digest[1]!.slice(0, 12)}…${digest[1]!.slice(-4)}`);
  });

  it('pages from the newest back to the oldest and forward again: every record once, no row on two pages', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    // 12 records: with 5 a page, the oldest page is short (2), and must not reach into the one before it.
    for (let i = 0; i < 12; i += 1) await propose(`c${i}`, { amount: 500 + i, to: 'alice' });
    const browser = await signedIn();
    const seqsOf = (html: string) => [...html.matchAll(/<tr data-seq="(\d+)">/g)].map((m) => Number(m[1]));
    const link = (html: string, rel: 'next' | 'prev') => new RegExp(`href="(/audit\\?[^"]+)" rel="${rel}"`).exec(html)?.[1]?.replaceAll('&amp;', '&');
    const pages: number[][] = [];
    let html = await (await browser.request('GET', '/audit?limit=5')).text();
    for (;;) {
      pages.push(seqsOf(html));
      const older = link(html, 'next');
      if (older === undefined) break;
      html = await (await browser.request('GET', older)).text();
    }
    expect(pages).toEqual([
      [12, 11, 10, 9, 8],
      [7, 6, 5, 4, 3],
      [2, 1],
    ]);
    expect(html).toContain('This page covers records 1–2: all 2 shown.');
    // Back up from the oldest page: the same pages, newest last.
    const back: number[][] = [];
    for (let newer = link(html, 'prev'); newer !== undefined; newer = link(html, 'prev')) {
      html = await (await browser.request('GET', newer)).text();
      back.push(seqsOf(html));
    }
    expect(back).toEqual([
      [7, 6, 5, 4, 3],
      [12, 11, 10, 9, 8],
    ]);
  });

  it('an approver who may read only some records is told how many of the page are hidden, and nothing else about them', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    await propose('c1', { amount: 500, to: 'alice' });
    // Denied by default (no rule): no approval request, so no approver was asked to decide it.
    await propose('hidden-call-1', { path: '/etc/shadow' }, 'unlisted_tool');
    await propose('c2', { amount: 600, to: 'bob' });
    await propose('hidden-call-2', { path: '/etc/passwd' }, 'unlisted_tool');
    await propose('hidden-call-3', { path: '/root' }, 'unlisted_tool');
    const fiona = await (await (await signedIn()).request('GET', '/audit')).text();
    expect([...fiona.matchAll(/<tr data-seq="(\d+)">/g)].map((m) => Number(m[1]))).toEqual([3, 1]);
    expect(fiona).toContain('Chain status: ok — 5 records verified');
    expect(fiona).toContain("This page covers records 1–5: 2 of 5 shown; the other 3 concern calls you were not asked to decide, or other approvers&#39; passkeys.");
    expect(fiona).not.toContain('hidden-call');
    expect(fiona).not.toContain('unlisted');
    // An auditor reads them all, and is told so.
    const auditor = await (
      await f.send('GET', '/audit', undefined, undefined, { 'X-Auth-User': 'ada', 'X-Auth-Roles': AUDITOR_ROLE, 'X-Proxy-Secret': PROXY_SECRET })
    ).text();
    expect(auditor).toContain('This page covers records 1–5: all 5 shown.');
    expect(auditor).toContain('hidden-call-3');
  });

  it('refuses a beforeSeq it cannot page by, with a clear error', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const browser = await signedIn();
    for (const query of ['beforeSeq=1', 'beforeSeq=-3', 'beforeSeq=x', 'beforeSeq=5&afterSeq=2']) {
      const res = await browser.request('GET', `/audit?${query}`);
      expect(res.status, query).toBe(400);
      expect(await res.text(), query).toMatch(/beforeSeq (must|or)|or beforeSeq/i);
    }
  });

  it('a call id opens its request; a call that never needed approval says so', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId, proposalId } = await propose('c1', { amount: 500, to: 'alice' });
    const browser = await signedIn();
    const res = await browser.request('GET', `/calls/${proposalId}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/requests/${requestId}`);
    const none = await browser.request('GET', '/calls/no-such-proposal');
    expect(none.status).toBe(404);
    expect(await none.text()).toContain('No approval request for this call');
  });
});
