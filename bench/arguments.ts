/** A tool-call argument object the benchmarks dispatch, with its label for the table. */
export interface ArgumentCase {
  label: string;
  args: Record<string, unknown>;
}

/** ~200 bytes of JSON: a typical payment-style call. */
function smallArguments(): Record<string, unknown> {
  return {
    to: 'alice@example.com',
    amount: 1250.75,
    currency: 'EUR',
    reference: 'INV-2026-000417',
    memo: 'Quarterly licence renewal, approved budget line 7',
    tags: ['finance', 'recurring'],
    scheduled: false,
  };
}

/** ~10 KB of JSON: a bulk call carrying a batch of records (deterministic content). */
function largeArguments(): Record<string, unknown> {
  const rows = Array.from({ length: 77 }, (_, i) => ({
    id: `row-${String(i).padStart(4, '0')}`,
    email: `user${i}@example.org`,
    amount: Math.round(((i * 7919) % 100_000) + i / 4) / 100,
    active: i % 3 !== 0,
    note: `line item ${i} — imported from ledger batch ${(i * 31) % 97}`,
  }));
  return { table: 'payouts', mode: 'upsert', dryRun: false, rows };
}

export const ARGUMENT_CASES: readonly ArgumentCase[] = [
  { label: '200 B', args: smallArguments() },
  { label: '10 KB', args: largeArguments() },
];

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}
