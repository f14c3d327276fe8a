import type { Gate } from '@countersign/core/gate';
import type { EnrolInput, PasskeyChangeResult, PasskeyStore, PasskeyVerifier, RemoveInput } from '@countersign/core/passkey';
import { ServerConfigError } from '../app/options.ts';
import { type RelyingParty, type RelyingPartyResult, relyingPartyFor } from './relying-party.ts';
import { registrationKey } from './registration.ts';
import { webauthnVerifier } from './webauthn-verifier.ts';

/** Passkey-signed approvals as the server runs them: the store, the RP, the registration key. */
export interface PasskeyServices {
  store: PasskeyStore;
  /** The relying party, from configuration only (never a request's Host header), or why there is none yet. */
  relyingParty(): ReturnType<typeof relyingPartyFor>;
  /** core's verifier, for the configured relying party. */
  verifier(): PasskeyVerifier;
  /** Registers a verified credential under core's step-up rule (the gate records it in its chain). */
  enrol(input: EnrolInput): Promise<PasskeyChangeResult>;
  /** Removes one of the approver's passkeys under core's step-up rule. */
  remove(input: RemoveInput): Promise<PasskeyChangeResult>;
  /** Key of the stateless registration challenges and removal nonces. */
  registrationKey: Buffer;
}

export interface PasskeyOptions {
  store: PasskeyStore;
  /**
   * The origin browsers use, when it is not the server's `publicOrigin`. A function so a
   * server on port 0 can name it once it listens. One of the two is required: the origin
   * is never taken from a request (its Host header is the client's to choose).
   */
  origin?: string | (() => string | undefined) | undefined;
}

/**
 * Registrations and removals go through the gate, which records them in its audit chain,
 * in the same transaction as the store change when the store appends to that chain (the
 * SQL stores; a MemoryPasskeyStore given the gate's MemoryAuditLog).
 */
export function passkeyServices(options: PasskeyOptions, gate: Pick<Gate, 'enrolPasskey' | 'removePasskey'>, publicOrigin: string | undefined, sessionSecret: string | undefined): PasskeyServices {
  if (publicOrigin === undefined && options.origin === undefined) {
    throw new ServerConfigError(
      'invalid_passkey_origin',
      'passkeys need the origin browsers use: set publicOrigin (countersign serve --public-url) or passkeys.origin; it is never taken from a request',
    );
  }
  const configured = () => (typeof options.origin === 'function' ? options.origin() : options.origin);
  const relyingParty = (): RelyingPartyResult => {
    const origin = publicOrigin ?? configured();
    return origin === undefined ? { ok: false, message: 'this service has no passkey origin yet (it is not listening)' } : relyingPartyFor(origin);
  };
  const verifier = () => {
    const found = relyingParty();
    const rp: RelyingParty | undefined = found.ok ? found.rp : undefined;
    return webauthnVerifier(options.store, () => rp);
  };
  return {
    store: options.store,
    relyingParty,
    verifier,
    enrol: (input) => gate.enrolPasskey(options.store, verifier(), input),
    remove: (input) => gate.removePasskey(options.store, verifier(), input),
    registrationKey: registrationKey(sessionSecret),
  };
}
