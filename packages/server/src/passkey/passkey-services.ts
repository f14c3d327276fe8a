import type { PasskeyStore, PasskeyVerifier } from '@countersign/core/passkey';
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

export function passkeyServices(options: PasskeyOptions, publicOrigin: string | undefined, sessionSecret: string | undefined): PasskeyServices {
  const configured = () => (typeof options.origin === 'function' ? options.origin() : options.origin);
  const relyingParty = (requestUrl: string) => relyingPartyFor(publicOrigin ?? configured() ?? new URL(requestUrl).origin);
  return {
    store: options.store,
    relyingParty,
    verifier: (requestUrl) => {
      const found = relyingParty(requestUrl);
      const rp: RelyingParty | undefined = found.ok ? found.rp : undefined;
      return webauthnVerifier(options.store, () => rp);
    },
    registrationKey: registrationKey(sessionSecret),
  };
}
