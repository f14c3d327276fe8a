import { describe, expect, it } from 'vitest';
import type { ApprovalView } from '../../views/request-views.ts';
import { formatNumber } from './amount.ts';
import { argumentLeaves } from './argument-leaves.ts';
import { callSummaries } from './call-summary.ts';

function view(requestId: string, toolName: string, args: unknown, display: Partial<ApprovalView['display']> = {}): ApprovalView {
  return {
    requestId,
    call: { toolName, canonicalArguments: JSON.stringify(args) },
    display: { findings: [], truncated: false, inputSchema: { checked: true, problems: [] }, ...display },
  } as unknown as ApprovalView;
}

const line = (summary: ReturnType<typeof callSummaries> extends Map<string, infer S> ? S | undefined : never) =>
  summary === undefined ? undefined : `${summary.fields.map((f) => `${f.label}: ${f.text}`).join(', ')}${summary.more > 0 ? ` +${summary.more}` : ''}`;

describe('callSummaries', () => {
  it('shows, per tool, only the fields that differ between its calls on the list', () => {
    const summaries = callSummaries([
      view('a', 'transfer', { amount: 500, currency: 'EUR', to: 'alice' }),
      view('b', 'transfer', { amount: 500, currency: 'EUR', to: 'bob' }),
      view('c', 'transfer', { amount: 70000, currency: 'EUR', memo: 'x', to: 'bob' }),
      view('d', 'deploy', { env: 'prod', version: '1.2.3' }),
    ]);
    expect(line(summaries.get('a'))).toBe('amount: 500, to: "alice"');
    expect(line(summaries.get('c'))).toBe('amount: 70,000, memo: "x", to: "bob"');
    // Alone on the list: every field.
    expect(line(summaries.get('d'))).toBe('env: "prod", version: "1.2.3"');
  });

  it('calls that agree everywhere show all their fields; nested values open two levels, then collapse', () => {
    // Canonical (RFC 8785) text, as the ledger holds it: keys sorted.
    const args = { flag: true, none: null, order: { id: 7, lines: [{ sku: 'A' }] } };
    const summaries = callSummaries([view('a', 't', args), view('b', 't', args)]);
    expect(line(summaries.get('a'))).toBe('flag: true, none: null, order.id: 7, order.lines: [1 item]');
  });

  it('keeps to one line: at most four fields, values and labels cut by code point', () => {
    const long = `${'😀'.repeat(60)}`;
    const summary = callSummaries([view('a', 't', { [`k${'e'.repeat(50)}y`]: long, b: 1, c: 2, d: 3, e: 4 })]).get('a')!;
    expect(summary.fields).toHaveLength(4);
    expect(summary.more).toBe(1);
    const first = summary.fields.find((f) => f.label.startsWith('k'))!;
    expect(Array.from(first.label)).toHaveLength(24);
    expect(first.label.endsWith('…')).toBe(true);
    expect(Array.from(first.text)).toHaveLength(40);
    expect(first.text.endsWith('…')).toBe(true);
    expect(first.text.isWellFormed()).toBe(true);
    expect(first.truncated).toBe(true);
  });

  it('puts flagged values first, so a truncated summary never hides the one to look at', () => {
    const summary = callSummaries([
      view('a', 't', { a: 1, b: 2, c: 3, d: 4, z: 'ali\u200Bce' }, { findings: [{ pointer: '/arguments/z', where: 'value', kind: 'invisible', detail: '' }] as never }),
    ]).get('a')!;
    expect(summary.fields[0]).toMatchObject({ label: 'z', text: '"ali\u200Bce"' });
  });

  it('gives definition reviews no summary and survives a huge argument object cheaply', () => {
    const huge = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    const summaries = callSummaries([{ ...view('r', 't', {}), review: {} } as ApprovalView, view('h', 't', huge)]);
    expect(summaries.has('r')).toBe(false);
    expect(summaries.get('h')!.fields).toHaveLength(4);
    expect(argumentLeaves(huge, { depth: 2, limit: 40 }).leaves).toHaveLength(40);
  });
});

describe('formatNumber', () => {
  it('groups amounts and large numbers, leaves small non-amounts and exponents as JSON, never changes a digit', () => {
    expect(formatNumber(1250000.5, 'amount')).toBe('1,250,000.5');
    expect(formatNumber(1000, 'price')).toBe('1,000');
    expect(formatNumber(1000, 'items[0].qty')).toBe('1,000');
    expect(formatNumber(1000, 'port')).toBe('1000');
    expect(formatNumber(123456, 'id')).toBe('123,456');
    expect(formatNumber(9007199254740991, 'amount')).toBe('9,007,199,254,740,991');
    expect(formatNumber(-1234567.0000001, 'fee')).toBe('-1,234,567.0000001');
    expect(formatNumber(1e-7, 'amount')).toBe('1e-7');
    expect(formatNumber(1e21, 'amount')).toBe('1e+21');
    expect(formatNumber(0.1, 'amount')).toBe('0.1');
  });
});
