import { mkdirSync } from 'node:fs';
import { loadPolicy } from '@countersign/core/policy';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { browserTestsRun, closeAll, servePages, signedInContext } from '../testing/chromium.ts';
import { AGENT_TOKEN, FIONA_PASSWORD, makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';

/** Outside the repository: screenshots for people to look at, not artifacts of the build. */
const SCREENS = process.env.COUNTERSIGN_SCREENS_DIR;

const POLICY = `
version: 1
rules:
  - id: transfers
    description: Transfers move real money out of the company.
    tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] }, ttlSeconds: 900 }
  - id: deploys
    description: A deploy changes production; two release managers check each one.
    tool: deploy
    verdict: approve
    approval: { approvers: { roles: [finance] }, required: 2, ttlSeconds: 900 }
`;

const FRANK = { id: 'frank', roles: ['finance'] };

let f: ServerFixture;
let pages: Awaited<ReturnType<typeof servePages>> | undefined;
let base: string;
const ids: Record<string, string> = {};

async function propose(callId: string, name: string, args: unknown): Promise<string> {
  const res = await fetch(`${base}/api/v1/proposals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${AGENT_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ runId: 'run-1', sessionId: 'session-1', principal: 'user:42', toolCalls: [{ id: callId, name, arguments: args }] }),
  });
  const out = (await res.json()) as { outcomes: Array<{ status: string; requestId: string; proposalId: string }> };
  expect(out.outcomes[0]?.status).toBe('approval_required');
  proposals[out.outcomes[0]!.requestId] = out.outcomes[0]!.proposalId;
  return out.outcomes[0]!.requestId;
}

const proposals: Record<string, string> = {};

async function agentJson<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${AGENT_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as T;
}

/** A blank page signed in as fiona, `width` x `height`; closed when the test ends. */
async function signIn(width: number, height: number): Promise<Page> {
  const context = await signedInContext(base, 'fiona', FIONA_PASSWORD, { viewport: { width, height } });
  onTestFinished(() => context.close());
  context.setDefaultTimeout(10_000);
  return context.newPage();
}

/** The bottom edge of a button, in page pixels from the top of the document (not scrolled). */
async function bottomOf(page: Page, name: string): Promise<number> {
  const box = await page.getByRole('button', { name, exact: true }).boundingBox();
  expect(box, `button ${name}`).not.toBeNull();
  return box!.y + box!.height;
}

describe.skipIf(!browserTestsRun)('the request page leads with the decision', () => {
  beforeAll(async () => {
    if (SCREENS !== undefined) mkdirSync(SCREENS, { recursive: true });
    f = makeServerFixture({ publicOrigin: undefined }, { policy: loadPolicy(POLICY, 'yaml') });
    pages = await servePages(f.app);
    base = pages.base;
    ids.transfer = await propose('c-transfer', 'transfer', { amount: 1250000.5, to: 'erin', memo: 'Q3 supplier payout' });
    // Long values: the summary line clips them, the detail below shows them whole.
    ids.long = await propose('c-long', 'transfer', {
      amount: 99,
      to: `acct-${'9'.repeat(300)}`,
      memo: 'word '.repeat(250).trim(),
      items: Array.from({ length: 30 }, (_, i) => ({ sku: `sku-${i}`, qty: i })),
    });
    ids.oneOfTwo = await propose('c-deploy', 'deploy', { env: 'prod', version: '2.4.1' });
    expect((await f.gate.approvals.decide(FRANK, { requestId: ids.oneOfTwo, decision: 'approve' })).ok).toBe(true);
  }, 60_000);
  afterAll(() => closeAll(f, pages));

  for (const [width, height] of [
    [390, 844],
    [1280, 800],
  ] as const) {
    it(`${width}x${height}: Approve and Deny are on the first screen, after the summary line`, async () => {
      const page = await signIn(width, height);
      for (const key of ['transfer', 'long', 'oneOfTwo'] as const) {
        await page.goto(`${base}/requests/${ids[key]}`);
        if (SCREENS !== undefined) await page.screenshot({ path: `${SCREENS}/request-${key}-${width}.png`, fullPage: false });
        expect(await bottomOf(page, 'Approve this call'), `${key}: Approve below the fold`).toBeLessThanOrEqual(height);
        expect(await bottomOf(page, 'Deny'), `${key}: Deny below the fold`).toBeLessThanOrEqual(height);
        expect(await page.locator('#summary-agent').textContent()).toBe('runtime');
        if (key === 'transfer') {
          expect(await page.locator('#summary-line').textContent()).toContain('amount: 1,250,000.5');
          expect(await page.locator('#summary-principal').textContent()).toBe('user:42');
        }
      }
    }, 60_000);
  }

  it('a 1-of-2 request says who approved and who is still needed', async () => {
    const page = await signIn(390, 844);
    await page.goto(`${base}/requests/${ids.oneOfTwo}`);
    expect(await page.locator('#approval-progress').textContent()).toMatch(/1 of 2\s+Approved by frank\. Waiting for 1 more approval, from anyone with the role finance\./);
  }, 30_000);

  it('the page follows the call without a reload: pending, approved by someone else, ran', async () => {
    const requestId = await propose('c-follow', 'transfer', { amount: 40, to: 'erin' });
    const page = await signIn(1280, 800);
    await page.goto(`${base}/requests/${requestId}`);
    const banner = page.locator('#state-banner strong');
    expect(await banner.textContent()).toBe('Waiting for approval');
    // A marker on the loaded document: a reload would drop it.
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    expect((await f.gate.approvals.decide(FRANK, { requestId, decision: 'approve' })).ok).toBe(true);
    await expect.poll(() => banner.textContent(), { timeout: 5000 }).toBe('Approved — not run yet');
    expect(await page.getByRole('button', { name: 'Approve this call', exact: true }).count()).toBe(0);
    const { token } = await agentJson<{ token: string }>(`/api/v1/requests/${requestId}/token`);
    expect(await agentJson<{ status: string }>('/api/v1/dispatch', { proposalId: proposals[requestId], token })).toMatchObject({ status: 'executed' });
    await expect.poll(() => banner.textContent(), { timeout: 5000 }).toBe('Ran');
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(await page.locator('#request-follow').textContent()).toMatch(/^Updated at .*: Ran\.$/);
  }, 30_000);
});
