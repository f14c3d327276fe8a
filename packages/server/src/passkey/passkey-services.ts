import type { AuditLog } from '@countersign/core/audit';
import type { PasskeyChangeDeps, PasskeyStore, PasskeyVerifier } from '@countersign/core/passkey';
import { type RelyingParty, relyingPartyFor } from './relying-party.ts';
import { registrationKey } from './registration.ts';
import { webauthnVerifier } from './webauthn-verifier.ts';

/** Passkey-signed approvals as the server runs them: the store, the RP, the registration key. */
export interface PasskeyServices {
  store: PasskeyStore;
  /** The relying party for a request to `requestUrl` (configured origin first), or why there is none. */
  relyingParty(requestUrl: string): ReturnType<typeof relyingPartyFor>;
  /** core's verifier, for a decision arriving on `requestUrl`. */
  verifier(requestUrl: string): PasskeyVerifier;
  /** What core's passkey changes (register, remove) need, for a request to `requestUrl`: the store, the gate's audit chain, the verifier. */
  changes(requestUrl: string): PasskeyChangeDeps;
  /** Key of the stateless registration challenges and removal nonces. */
  registrationKey: Buffer;
}

export interface PasskeyOptions {
  store: PasskeyStore;
  /**
   * The origin browsers use, when it is not the server's `publicOrigin`. A function so a
   * server on port 0 can name it once it listens. Default: publicOrigin, else the origin
   * the request was made to.
   */
  origin?: string | (() => string | undefined) | undefined;
}

/**
 * `audit` is the gate's chain: registrations and removals are recorded there, in the same
 * transaction as the store change when the store appends to that chain (the SQL stores;
 * a MemoryPasskeyStore given the gate's MemoryAuditLog).
 */
export function passkeyServices(options: PasskeyOptions, audit: AuditLog, publicOrigin: string | undefined, sessionSecret: string | undefined): PasskeyServices {
  const configured = () => (typeof options.origin === 'function' ? options.origin() : options.origin);
  const relyingParty = (requestUrl: string) => relyingPartyFor(publicOrigin ?? configured() ?? new URL(requestUrl).origin);
  const verifier = (requestUrl: string) => {
    const found = relyingParty(requestUrl);
    const rp: RelyingParty | undefined = found.ok ? found.rp : undefined;
    return webauthnVerifier(options.store, () => rp);
  };
  return {
    store: options.store,
    relyingParty,
    verifier,
    changes: (requestUrl) => ({ store: options.store, audit, verifier: verifier(requestUrl) }),
    registrationKey: registrationKey(sessionSecret),
  };
}
