import type { Gate } from '@countersign/core/gate';
import type { EnrolInput, PasskeyChangeResult, PasskeyStore, PasskeyVerifier, RemoveInput } from '@countersign/core/passkey';
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
  /** Registers a verified credential under core's step-up rule (the gate records it in its chain), for a request to `requestUrl`. */
  enrol(requestUrl: string, input: EnrolInput): Promise<PasskeyChangeResult>;
  /** Removes one of the approver's passkeys under core's step-up rule. */
  remove(requestUrl: string, input: RemoveInput): Promise<PasskeyChangeResult>;
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
 * Registrations and removals go through the gate, which records them in its audit chain,
 * in the same transaction as the store change when the store appends to that chain (the
 * SQL stores; a MemoryPasskeyStore given the gate's MemoryAuditLog).
 */
export function passkeyServices(options: PasskeyOptions, gate: Pick<Gate, 'enrolPasskey' | 'removePasskey'>, publicOrigin: string | undefined, sessionSecret: string | undefined): PasskeyServices {
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
    enrol: (requestUrl, input) => gate.enrolPasskey(options.store, verifier(requestUrl), input),
    remove: (requestUrl, input) => gate.removePasskey(options.store, verifier(requestUrl), input),
    registrationKey: registrationKey(sessionSecret),
  };
}
