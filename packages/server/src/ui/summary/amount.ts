/** Keys whose numbers are money or quantities: grouped into thousands so 1000000 and 100000 never look alike. */
const AMOUNT_KEY = /(amount|amt|price|total|sum|cost|fee|balance|value|qty|quantity|count|limit|budget|salary|payment|credit|debit|usd|eur|gbp|cents)/i;

const GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20, useGrouping: true });

/** The key names something people read as an amount. */
export function isAmountKey(label: string): boolean {
  const last = label.split(/[.[\]]/).filter((part) => part !== '').at(-1) ?? '';
  return AMOUNT_KEY.test(last);
}

/**
 * A number as a person should read it: grouped (`1,250,000.5`) when it is an amount or
 * large enough to miscount (≥ 10,000), exact JSON text otherwise. Numbers in the ledger
 * are exact (canonicalized), so grouping never rounds: digits past what Intl prints fall
 * back to the JSON text.
 */
export function formatNumber(value: number, label: string): string {
  const json = JSON.stringify(value);
  if (!Number.isFinite(value) || json.includes('e')) return json;
  if (!isAmountKey(label) && Math.abs(value) < 10_000) return json;
  const grouped = GROUPED.format(value);
  // Grouping must not change a digit: compare without the separators.
  return grouped.replaceAll(',', '') === json ? grouped : json;
}
