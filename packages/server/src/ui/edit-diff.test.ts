import { afterEach, describe, expect, it } from 'vitest';
import { browserSession } from '../testing/browser-session.ts';
import { makeServerFixture, ORIGIN, type ServerFixture } from '../testing/server-fixture.ts';
import type { ApprovalView } from '../views/request-views.ts';

let f: ServerFixture | undefined;
afterEach(async () => {
  await f?.close();
});

describe('an edited call shows what changed, from both sides', () => {
  it('old → new for each changed value, and links the original and the edit to each other', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer({ amount: 1250000.5, to: 'erin', memo: 'Q3' });
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', editedArguments: { amount: 250, to: 'erin', note: 'capped' } });
    expect(res.status).toBe(200);
    const edited = ((await res.json()) as { editedRequest: ApprovalView }).editedRequest.requestId;
    const fiona = browserSession(f.app, ORIGIN);
    await fiona.login('fiona', 'correct horse battery staple');

    const editPage = await (await fiona.request('GET', `/requests/${edited}`)).text();
    const section = /<section class="card" id="edit-diff"[\s\S]*?<\/section>/.exec(editPage)?.[0] ?? '';
    expect(section).toContain(`href="/requests/${requestId}" id="edit-counterpart-link"`);
    expect(section).toContain('<li><code>amount</code>: <del>1,250,000.5</del> → <ins>250</ins></li>');
    expect(section).toContain('<li><code>note</code>: <span class="muted">(not set)</span> → <ins>&quot;capped&quot;</ins></li>');
    expect(section).toContain('<li><code>memo</code>: <del>&quot;Q3&quot;</del> → <span class="muted">(removed)</span></li>');
    expect(section).not.toContain('<code>to</code>');

    const originalPage = await (await fiona.request('GET', `/requests/${requestId}`)).text();
    const back = /<section class="card" id="edit-diff"[\s\S]*?<\/section>/.exec(originalPage)?.[0] ?? '';
    expect(back).toContain(`href="/requests/${edited}" id="edit-counterpart-link"`);
    expect(back).toContain('<li><code>amount</code>: <del>1,250,000.5</del> → <ins>250</ins></li>');
  });
});
