import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type ServerType, serve } from '@hono/node-server';
import { loadPolicy } from '@countersign/core/policy';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { browserTestsRun, signedInContext } from '../testing/chromium.ts';
import { AGENT_TOKEN, FIONA_PASSWORD, makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';

const SCREENSHOTS = fileURLToPath(new URL('../../../../test-results/screenshots', import.meta.url));
const SCREENS = process.env.COUNTERSIGN_SCREENS_DIR;

const POLICY = `
version: 1
rules:
  - id: large-transfers
    description: Transfers move real money out of the company; two people from finance check each one.
    tool: transfer
    verdict: approve
    approval: { approvers: { roles: [finance] }, required: 2, ttlSeconds: 900 }
  - id: deploys
    description: A deploy changes production.
    tool: deploy
    verdict: approve
    approval: { approvers: { roles: [finance] }, ttlSeconds: 60 }
`;

const FRANK = { id: 'frank', roles: ['finance'] };
const FIONA = { id: 'fiona', roles: ['finance'] };
const LONG = 'x'.repeat(600);

/** Arguments built to break a layout: unbroken strings, bidi, a long key, deep values, huge numbers. */
const HOSTILE_ARGS = {
  amount: 9007199254740991,
  to: `acct-${LONG}`,
  memo: `Invoice \u202Egnp.exe\u202C for ${'W'.repeat(240)}`,
  [`k${'e'.repeat(150)}y`]: 'long key',
  fee: -1234567.0000001,
  ratio: 1e-7,
  items: [{ sku: 'A'.repeat(300), qty: 1000000 }],
};

let f: ServerFixture;
let server: ServerType;
let base: string;
const ids: Record<string, string> = {};

async function agentPost<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${AGENT_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as T;
}

async function propose(callId: string, name: string, args: unknown, extra: { context?: string; principal?: string; runId?: string } = {}) {
  const out = await agentPost<{ outcomes: Array<{ status: string; requestId: string; proposalId: string }> }>('/api/v1/proposals', {
    runId: extra.runId ?? 'run-1',
    sessionId: 'session-1',
    principal: extra.principal ?? 'user:42',
    toolCalls: [{ id: callId, name, arguments: args, ...(extra.context === undefined ? {} : { context: extra.context }) }],
  });
  expect(out.outcomes?.[0]?.status, JSON.stringify(out).slice(0, 300)).toBe('approval_required');
  return out.outcomes[0]!;
}

async function decide(requestId: string, approver: { id: string; roles: string[] }, decision: 'approve' | 'deny') {
  const decided = await f.gate.approvals.decide(approver, { requestId, decision, ...(decision === 'deny' ? { reason: 'not this month' } : {}) });
  expect(decided.ok).toBe(true);
}

/** Every request state the pages must tell apart, each with the hostile arguments somewhere. */
async function seed() {
  f.clock.advance(-120_000);
  ids.expired = (await propose('c-expired', 'deploy', { env: 'prod', version: LONG })).requestId;
  f.clock.advance(120_000);
  ids.denied = (await propose('c-denied', 'transfer', { amount: 2500, to: 'mallory' })).requestId;
  await decide(ids.denied, FRANK, 'deny');
  ids.revoked = (await propose('c-revoked', 'transfer', { amount: 3000, to: 'carol' })).requestId;
  await decide(ids.revoked, FRANK, 'approve');
  await decide(ids.revoked, FIONA, 'approve');
  expect((await f.gate.approvals.revoke(FIONA, ids.revoked)).ok).toBe(true);
  const consumed = await propose('c-consumed', 'transfer', { amount: 4000, to: 'dave' });
  ids.consumed = consumed.requestId;
  await decide(ids.consumed, FRANK, 'approve');
  await decide(ids.consumed, FIONA, 'approve');
  const token = (await (await fetch(`${base}/api/v1/requests/${ids.consumed}/token`, { headers: { authorization: `Bearer ${AGENT_TOKEN}` } })).json()) as { token: string };
  expect(await agentPost<{ status: string }>('/api/v1/dispatch', { proposalId: consumed.proposalId, token: token.token })).toMatchObject({ status: 'executed' });
  ids.approved = (await propose('c-approved', 'transfer', { amount: 1250000.5, to: 'erin' })).requestId;
  await decide(ids.approved, FRANK, 'approve');
  await decide(ids.approved, FIONA, 'approve');
  ids.oneOfTwo = (await propose('c-one-of-two', 'transfer', { amount: 75000, to: 'bob', memo: 'Q3 payout' })).requestId;
  await decide(ids.oneOfTwo, FRANK, 'approve');
  ids.schema = (await propose('c-schema', 'transfer', { amount: '1000000', to: 'alice' })).requestId;
  ids.hostile = (
    await propose('c-hostile', 'transfer', HOSTILE_ARGS, {
      principal: `user:${'p'.repeat(200)}`,
      runId: `run-${'r'.repeat(200)}`,
      context: `The user asked me to pay this. ${'Z'.repeat(400)} \u202Eignore the amount\u202C`,
    })
  ).requestId;
}

/** A page signed in as fiona on the request list, `width` px wide; closed when the test ends. */
async function signIn(width: number): Promise<Page> {
  const context = await signedInContext(base, 'fiona', FIONA_PASSWORD, { viewport: { width, height: 900 } });
  onTestFinished(() => context.close());
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  await page.goto(`${base}/`);
  return page;
}

/** Horizontal overflow: the document scrolls sideways, or some visible element is wider than the viewport or sticks out to the right. */
async function overflow(page: Page) {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number }; querySelectorAll(s: string): ArrayLike<unknown> } }).document;
    const width = (globalThis as unknown as { innerWidth: number }).innerWidth;
    const offenders: string[] = [];
    for (const node of Array.from(doc.querySelectorAll('body *')) as Array<{ getBoundingClientRect(): { width: number; height: number; right: number }; tagName: string; id: string; className: string }>) {
      const box = node.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.width > width + 0.5 || box.right > width + 0.5) offenders.push(`${node.tagName.toLowerCase()}#${node.id}.${String(node.className)} ${Math.round(box.width)}px right ${Math.round(box.right)}`);
    }
    return { scrollWidth: doc.documentElement.scrollWidth, width, offenders: offenders.slice(0, 8) };
  });
}

async function expectNoOverflow(page: Page, name: string, width: number) {
  const measured = await overflow(page);
  // Full-page screenshots of these long pages were most of this file's time: one is taken
  // when the page overflows, to show where, or of every page with COUNTERSIGN_SCREENS_DIR set.
  const fits = measured.scrollWidth === width && measured.width === width && measured.offenders.length === 0;
  if (!fits || SCREENS !== undefined) await page.screenshot({ path: `${SCREENS ?? SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
  expect({ name, ...measured }).toEqual({ name, scrollWidth: measured.width, width, offenders: [] });
}

describe.skipIf(!browserTestsRun)('pages at 390 px and 1280 px: no horizontal overflow, every state', () => {
  beforeAll(async () => {
    mkdirSync(SCREENS ?? SCREENSHOTS, { recursive: true });
    f = makeServerFixture({ publicOrigin: undefined }, { policy: loadPolicy(POLICY, 'yaml') });
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: f.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await seed();
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  });

  for (const width of [390, 1280]) {
    it(`${width} px: the list (pending and closed), every request state and the audit log fit the screen`, async () => {
      const page = await signIn(width);
      await expectNoOverflow(page, 'list-pending', width);
      await page.goto(`${base}/?status=consumed`);
      await expectNoOverflow(page, 'list-consumed', width);
      for (const [state, requestId] of Object.entries(ids)) {
        await page.goto(`${base}/requests/${requestId}`);
        // Open every disclosure (full digests, canonical text): open, they must fit too.
        await page.evaluate(() => {
          for (const d of Array.from((globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ open: boolean }> } }).document.querySelectorAll('details'))) d.open = true;
        });
        await expectNoOverflow(page, `request-${state}`, width);
      }
      await page.goto(`${base}/audit`);
      await expectNoOverflow(page, 'audit', width);
    }, 120_000);
  }
});
