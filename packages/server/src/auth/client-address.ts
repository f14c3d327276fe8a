import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The throttling key for the peer of this connection: its IPv4 address, or the /64
 * prefix of its IPv6 address (one subscriber usually holds a whole /64, so single
 * addresses would let one attacker rotate without limit). Undefined when the app
 * does not run on `@hono/node-server` (tests through `app.request`, other runtimes).
 *
 * Only the socket's address counts: X-Forwarded-For is set by whoever sends the
 * request, so behind a reverse proxy every client shares the proxy's address.
 */
export function clientAddress(c: Context): string | undefined {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    // No Node incoming message in the bindings: the address is unknown.
    return undefined;
  }
  return address === undefined || address.length === 0 ? undefined : addressKey(address);
}

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `1.2.3.4` → `1.2.3.4`; `::ffff:1.2.3.4` → `1.2.3.4`; `2001:db8::1` → `2001:db8:0:0::/64`. */
export function addressKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const mapped = MAPPED_IPV4.exec(bare);
  if (mapped !== null) return mapped[1]!;
  if (!bare.includes(':')) return bare;
  const groups = expandIpv6(bare);
  return groups === undefined ? bare : `${groups.slice(0, 4).join(':')}::/64`;
}

function expandIpv6(address: string): string[] | undefined {
  const halves = address.toLowerCase().split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] === '' ? [] : halves[0]!.split(':');
  const tail = halves.length === 2 && halves[1] !== '' ? halves[1]!.split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...Array<string>(missing).fill('0'), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return groups.map((g) => g.replace(/^0+(?=.)/, ''));
}
