import { LedgerError } from '../ledger/errors.ts';
import type { PasskeyCredential } from '../passkey/types.ts';
import { integer, json, optionalInteger, type Row, text } from './row-fields.ts';

/** A passkey_credentials row (both SQL stores, migration 7) as a credential; optional fields only when set. */
export function passkeyFromRow(row: Row): PasskeyCredential {
  const credential: PasskeyCredential = {
    credentialId: text(row, 'credential_id'),
    approver: text(row, 'approver'),
    publicKey: text(row, 'public_key'),
    counter: integer(row, 'counter'),
    label: text(row, 'label'),
    createdAt: integer(row, 'created_at'),
  };
  if (row.transports !== null && row.transports !== undefined) {
    const transports = json(row, 'transports');
    if (!Array.isArray(transports) || !transports.every((t) => typeof t === 'string')) {
      throw new LedgerError('corrupt_record', 'column transports: expected a JSON array of strings');
    }
    credential.transports = transports;
  }
  const lastUsedAt = optionalInteger(row, 'last_used_at');
  if (lastUsedAt !== undefined) credential.lastUsedAt = lastUsedAt;
  const removedAt = optionalInteger(row, 'removed_at');
  if (removedAt !== undefined) credential.removedAt = removedAt;
  return credential;
}
