import { createHash } from 'node:crypto';

/**
 * A 64-bit advisory lock key for one purpose in one schema, as a decimal string
 * for a bigint parameter. Derived rather than a bare constant, so two stores in
 * different schemas of one database do not serialise on each other's locks.
 */
export function advisoryLockKey(schema: string, purpose: 'migrate' | 'audit-append' | `passkeys-of:${string}` | `passkey-public-key:${string}`): string {
  return createHash('sha256').update(`countersign:${purpose}:${schema}`).digest().readBigInt64BE(0).toString();
}
