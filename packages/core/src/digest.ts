import { hash } from 'node:crypto';

/**
 * Lower-case hex SHA-256 of the UTF-8 bytes of `text`. Used for every digest we store
 * or bind. `crypto.hash` is the one-shot form: same output as createHash, far cheaper
 * for the short inputs on the hot path.
 */
export function sha256Hex(text: string | Uint8Array): string {
  return hash('sha256', text, 'hex');
}
