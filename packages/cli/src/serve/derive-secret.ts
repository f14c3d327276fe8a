import { hkdfSync } from 'node:crypto';

/**
 * A secret for one purpose, derived from the master secret (HKDF-SHA256). Session
 * keys and the default local credentials come from here, so they stay the same
 * across restarts and across replicas sharing a master secret, without another
 * file to keep. Labels keep the purposes apart: knowing one derived value reveals
 * neither the master secret nor any other derived value.
 */
export function deriveSecret(master: Uint8Array, label: string, bytes = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', master, 'countersign/serve', label, bytes));
}
