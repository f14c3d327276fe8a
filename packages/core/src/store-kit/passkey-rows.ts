import type { PasskeyCredential } from '../passkey/types.ts';
import { integer, optionalInteger, type Row, text } from './row-fields.ts';

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
  const transports = transportsOf(row);
  if (transports !== undefined) credential.transports = transports;
  const lastUsedAt = optionalInteger(row, 'last_used_at');
  if (lastUsedAt !== undefined) credential.lastUsedAt = lastUsedAt;
  const removedAt = optionalInteger(row, 'removed_at');
  if (removedAt !== undefined) credential.removedAt = removedAt;
  return credential;
}

/**
 * The transports hint, or undefined when the column holds anything but a JSON array of
 * strings: a hint only (which way a browser may reach the authenticator), so a poisoned
 * value (rows written before registration checked it, or by hand) never makes the row,
 * the approver's passkeys, or the whole table unreadable.
 */
function transportsOf(row: Row): string[] | undefined {
  const raw = row.transports;
  if (raw === null || raw === undefined) return undefined;
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return undefined;
    }
  }
  return Array.isArray(value) && value.every((t) => typeof t === 'string') ? [...value] : undefined;
}
