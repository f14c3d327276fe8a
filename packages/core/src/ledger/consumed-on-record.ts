import { LedgerError } from './errors.ts';
import type { RecordProposalOptions } from './types.ts';

/**
 * `options.consumedAt` once checked: the time a created call is stored consumed, or
 * undefined to store it `proposed`. Every store calls this before writing, so a call that
 * opens an approval request is never recorded spent before a person approved it.
 */
export function consumedOnRecord(options: RecordProposalOptions): number | undefined {
  const at = options.consumedAt;
  if (at === undefined) return undefined;
  if (options.request !== undefined) throw new LedgerError('invalid_input', 'a call that opens an approval request cannot be recorded consumed');
  if (!Number.isSafeInteger(at) || at < 0) throw new LedgerError('invalid_input', 'consumedAt must be a time in milliseconds since the epoch');
  return at;
}
