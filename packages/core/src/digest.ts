import { createHash } from 'node:crypto';

/** Lower-case hex SHA-256 of the UTF-8 bytes of `text`. Used for every digest we store or bind. */
export function sha256Hex(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
