import { isIP } from 'node:net';

/** Who the passkeys belong to: the WebAuthn RP id (a host name) and the exact origin browsers use. */
export interface RelyingParty {
  rpId: string;
  origin: string;
}

export type RelyingPartyResult = { ok: true; rp: RelyingParty } | { ok: false; message: string };

/**
 * The relying party for an origin: the configured public URL (`--public-url`), else the
 * address the service listens on. WebAuthn scopes a passkey to a domain, never to an IP
 * address, and needs a secure context (https, or http on localhost): serve on
 * `http://localhost:PORT` or behind `--public-url https://…`, not on 127.0.0.1.
 */
export function relyingPartyFor(origin: string): RelyingPartyResult {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return { ok: false, message: `not an origin: ${origin}` };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // The origin is fixed when the service starts, never taken from a request: browsing to
  // localhost instead does not help, so the hint names only the flag that changes it.
  if (isIP(host) !== 0) {
    return {
      ok: false,
      message: `passkeys need a domain name, not the IP address ${host}: restart serve with --public-url http://localhost:${url.port || '80'} (or your https address) and open that address`,
    };
  }
  const secure = url.protocol === 'https:' || host === 'localhost' || host.endsWith('.localhost');
  if (!secure) return { ok: false, message: `passkeys need https (or http://localhost): restart serve with --public-url set to the https address approvers use (now ${url.origin})` };
  return { ok: true, rp: { rpId: host, origin: url.origin } };
}
