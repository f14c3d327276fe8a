import type { AddressInfo } from 'node:net';
import { loadPolicy } from '@countersign/core/policy';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserTestsRun, signedInContext } from '../testing/chromium.ts';
import { FIONA_PASSWORD, makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';

// The edit form generated from the pinned input schema, used as an approver would on a
// phone (390 px): one typed field per argument, checked as it is typed, writing the same
// JSON the textarea sends; the edited call carries the value.

const skip = !browserTestsRun;

const PAY = {
  name: 'pay',
  description: 'Pays an invoice.',
  inputSchema: {
    type: 'object',
    properties: {
      amount: { type: 'integer', minimum: 1, maximum: 1000 },
      currency: { enum: ['EUR', 'USD'] },
      urgent: { type: 'boolean' },
      to: { type: 'string', minLength: 2 },
      memo: { type: 'object' },
    },
    required: ['amount', 'to'],
  },
};
const POLICY = 'version: 1\nrules:\n  - { id: payments, tool: pay, verdict: approve, approval: { approvers: { roles: [finance] } } }\n';

let f: ServerFixture;
let server: ServerType;
let base: string;

beforeAll(async () => {
  if (skip) return;
  f = makeServerFixture({ publicOrigin: undefined }, { tools: { pay: { definition: PAY, execute: () => ({ ok: true }) } }, policy: loadPolicy(POLICY, 'yaml') });
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

it.skipIf(skip)('390 px: fill the typed fields, a bad value is flagged as typed, submit; the edited call has the values and keeps the nested one', { timeout: 120_000 }, async () => {
  const res = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'p1', name: 'pay', arguments: { amount: 900, currency: 'USD', to: 'acme', memo: { ref: 'INV-7', lines: [1, 2] } } }]));
  const { requestId } = ((await res.json()) as { outcomes: Array<{ requestId: string }> }).outcomes[0]!;
  const context = await signedInContext(base, 'fiona', FIONA_PASSWORD, { viewport: { width: 390, height: 844 } });
  context.setDefaultTimeout(15_000);
  try {
    const page = await context.newPage();
    await page.goto(`${base}/requests/${requestId}`);
    await page.getByText('Edit the arguments, then approve').click();
    // One field per argument the schema types (in the pinned definition's canonical order); the nested memo stays in the JSON.
    expect(await page.locator('#edit-fields [data-arg]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-arg')}:${e.getAttribute('data-kind')}`))).toEqual([
      'amount:integer',
      'currency:enum',
      'to:string',
      'urgent:boolean',
    ]);
    const amount = page.locator('#arg-amount');
    expect(await amount.inputValue()).toBe('900');
    // Checked as typed: over the schema's maximum, then not an integer.
    await amount.fill('5000');
    expect(await page.locator('#arg-amount-error').textContent()).not.toBe('');
    expect(await amount.getAttribute('aria-invalid')).toBe('true');
    await amount.fill('2.5');
    expect(await page.locator('#arg-amount-error').textContent()).not.toBe('');
    // A refused value is not submitted: the click stays on the page.
    await page.getByRole('button', { name: 'Approve edited call' }).click();
    expect(page.url()).toBe(`${base}/requests/${requestId}`);
    await amount.fill('250');
    expect(await page.locator('#arg-amount-error').textContent()).toBe('');
    await page.locator('#arg-currency').selectOption('"EUR"');
    await page.locator('#arg-urgent').selectOption('true');
    // The textarea holds what will be sent, written by the fields.
    expect(JSON.parse(await page.locator('#edited-arguments').inputValue())).toEqual({ amount: 250, currency: 'EUR', urgent: true, to: 'acme', memo: { ref: 'INV-7', lines: [1, 2] } });
    // Nothing wider than the phone's screen.
    expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390);
    await Promise.all([page.waitForURL(/\/requests\/[^/?]+\?done=edited$/, { timeout: 60_000 }), page.getByRole('button', { name: 'Approve edited call' }).click()]).catch(async (error) => {
      throw new Error(`${String(error)} at ${page.url()}: ${await page.locator('#decision-error, #arg-amount-error').allTextContents()}`);
    });
    const editedRequestId = new URL(page.url()).pathname.split('/').pop()!;
    const edited = await f.gate.approvals.view(editedRequestId);
    if (!edited.ok) throw new Error(edited.reason);
    expect(edited.view.proposal.canonicalArgs).toBe('{"amount":250,"currency":"EUR","memo":{"lines":[1,2],"ref":"INV-7"},"to":"acme","urgent":true}');
  } finally {
    await context.close();
  }
});

it.skipIf(skip)('fields and JSON are one state: a hand edit of the JSON moves the fields, a field rewrites only its own member, invalid JSON is flagged and kept as typed', { timeout: 120_000 }, async () => {
  const res = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'p2', name: 'pay', arguments: { amount: 900, currency: 'USD', to: 'acme' } }]));
  const { requestId } = ((await res.json()) as { outcomes: Array<{ requestId: string }> }).outcomes[0]!;
  const context = await signedInContext(base, 'fiona', FIONA_PASSWORD, { viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(15_000);
  try {
    const page = await context.newPage();
    await page.goto(`${base}/requests/${requestId}`);
    await page.getByText('Edit the arguments, then approve').click();
    const json = page.locator('#edited-arguments');
    const field = (name: string) => page.locator(`#arg-${name}`);

    // JSON → fields: every field follows the hand edit; a nested value and a number too long for a double ride along.
    const typed = '{"amount": 250, "to": "bob", "currency": "EUR", "urgent": true, "memo": {"ref": "INV-9", "n": 12345678901234567890}}';
    await json.fill(typed);
    expect([await field('amount').inputValue(), await field('to').inputValue(), await field('currency').inputValue(), await field('urgent').inputValue()]).toEqual(['250', 'bob', '"EUR"', 'true']);

    // Invalid JSON: said so, the text kept exactly as typed, the fields wait.
    const broken = typed.slice(0, -1);
    await json.fill(broken);
    expect(await page.locator('#edited-arguments-error').textContent()).toContain('Not valid JSON');
    expect(await json.getAttribute('aria-invalid')).toBe('true');
    expect(await json.inputValue()).toBe(broken);
    expect(await page.locator('#edit-fields').evaluate((el) => (el as unknown as { disabled: boolean }).disabled)).toBe(true);
    await json.fill(`${broken}}`);
    expect(await page.locator('#edited-arguments-error').textContent()).toBe('');
    expect(await page.locator('#edit-fields').evaluate((el) => (el as unknown as { disabled: boolean }).disabled)).toBe(false);

    // Field → JSON: only that member changes; every other member keeps its exact text (all digits of n).
    await field('amount').fill('300');
    const written = await json.inputValue();
    expect(written).toContain('"amount": 300');
    expect(written).toContain('"n": 12345678901234567890');
    expect(written).toContain('"to": "bob"');

    // A value the field cannot hold: the field is disabled and says where to change it.
    await json.fill(written.replace('"amount": 300', '"amount": "lots"'));
    expect(await field('amount').isDisabled()).toBe(true);
    expect(await field('amount').inputValue()).toBe('');
    expect(await page.locator('#arg-amount-error').textContent()).toContain('"lots"');
    // A duplicate key is refused like the server refuses it.
    await json.fill('{"to": "bob", "to": "mallory", "amount": 5}');
    expect(await page.locator('#edited-arguments-error').textContent()).toContain('appears twice');
    expect(await field('to').inputValue()).toBe('bob');
  } finally {
    await context.close();
  }
});
