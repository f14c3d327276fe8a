import type { PasskeyCredential } from '@countersign/core/passkey';
import type { RelyingParty } from './relying-party.ts';

/** How long a browser may take to sign (a decision, or a step-up for a passkey change). */
export const ASSERTION_TIMEOUT_MS = 120_000;

/** Options for `navigator.credentials.get` over `challenge`, with the approver's active passkeys and user verification required. */
export function assertionOptions(rp: RelyingParty, credentials: readonly PasskeyCredential[], challenge: string) {
  return {
    challenge,
    rpId: rp.rpId,
    allowCredentials: credentials
      .filter((credential) => credential.removedAt === undefined)
      .map((credential) => ({ type: 'public-key' as const, id: credential.credentialId, ...(credential.transports ? { transports: credential.transports } : {}) })),
    userVerification: 'required' as const,
    timeout: ASSERTION_TIMEOUT_MS,
  };
}
