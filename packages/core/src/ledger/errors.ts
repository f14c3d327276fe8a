export type LedgerErrorCode = 'not_found' | 'duplicate_id' | 'store_unavailable' | 'corrupt_record' | 'invalid_input';

/** Thrown by ledger stores for misuse or outage; the gate maps any of these to a typed outcome. */
export class LedgerError extends Error {
  readonly code: LedgerErrorCode;
  constructor(code: LedgerErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LedgerError';
    this.code = code;
  }
}
