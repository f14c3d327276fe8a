import { loadPolicy } from '@countersign/core/policy';
import { afterEach, describe, expect, it } from 'vitest';
import { browserSession } from '../testing/browser-session.ts';
import { FIONA_PASSWORD, makeServerFixture, ORIGIN, type ServerFixture } from '../testing/server-fixture.ts';

const POLICY = `
version: 1
rules:
  - id: large-transfers
    tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] } }
`;
const LONG_PRINCIPAL = 'team:payments-operations/user:jane.doe@example-corporation.com';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

async function signedIn() {
  const browser = browserSession(f.app, ORIGIN);
  await browser.login('fiona', FIONA_PASSWORD);
  return browser;
}

async function proposeFor(principal: string) {
  const body = { ...f.proposalBody([{ id: 'c1', name: 'transfer', arguments: { amount: 500, to: 'alice' } }]), principal };
  expect((await f.agent('POST', '/api/v1/proposals', body)).status).toBe(200);
}

describe('long identifiers wrap at their separators, never mid-word, whole on hover and tap', () => {
  it('the list: a long principal is cut short with a line-break opportunity after each separator and the whole value on focus', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    await proposeFor(LONG_PRINCIPAL);
    const page = await (await (await signedIn()).request('GET', '/')).text();
    const cell = /<td data-label="Principal" class="text id">([\s\S]*?)<\/td>/.exec(page)?.[1] ?? '';
    expect(cell).toContain(`tabindex="0" title="${LONG_PRINCIPAL}"`);
    const full = /<span class="full">([\s\S]*?)<\/span><\/span>$/.exec(cell)?.[1] ?? '';
    expect(full.replaceAll('<wbr>', '')).toBe(LONG_PRINCIPAL);
    // Break opportunities only right after a separator.
    for (const piece of full.split('<wbr>').slice(0, -1)) expect(piece).toMatch(/[:/@._-]$/);
    const short = /<span class="short">([\s\S]*?)<\/span>/.exec(cell)?.[1]?.replaceAll('<wbr>', '') ?? '';
    expect(Array.from(short)).toHaveLength(48);
  });

  it('a run too long to be a word (a token) may wrap inside, every 16 characters; words never', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    await proposeFor(`user:${'p'.repeat(40)}`);
    const page = await (await (await signedIn()).request('GET', '/')).text();
    const whole = /<span class="id-text">([\s\S]*?)<\/span>/.exec(page)?.[1] ?? '';
    expect(whole.split('<wbr>').map((piece) => Array.from(piece).length)).toEqual([5, 16, 16, 8]);
  });

  it('the audit page: each row time is a <time datetime> (viewer zone via page.js) with UTC in its title', async () => {
    f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    await proposeFor('user:42');
    const page = await (await (await signedIn()).request('GET', '/audit')).text();
    const cells = [...page.matchAll(/<td data-label="Time" class="when">([\s\S]*?)<\/td>/g)].map((m) => m[1]);
    expect(cells.length).toBeGreaterThan(0);
    for (const cell of cells) expect(cell).toMatch(/^<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z" title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/time>$/);
  });
});
