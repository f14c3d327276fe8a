import type { OfflineAssertionCheck, PasskeyAssertion, PasskeyCheck, PasskeyCredential, PasskeyStore, PasskeyVerifier } from '@countersign/core/passkey';
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import type { RelyingParty } from './relying-party.ts';

/**
 * The server's passkey check (core's `PasskeyVerifier`), with @simplewebauthn/server:
 * the credential is one of THIS approver's registered, unremoved passkeys; the
 * assertion's challenge is exactly the one core rebuilt from the ledger; origin and RP
 * id are this service's; user verification is required; the signature holds under the
 * registered public key; and the counter advances (one compare-and-set in the store,
 * so a replayed assertion is refused even when two replicas see it at once).
 */
export function webauthnVerifier(store: PasskeyStore, relyingParty: () => RelyingParty | undefined): PasskeyVerifier {
  return {
    async verify({ approver, assertion, challenge, now }): Promise<PasskeyCheck> {
      const rp = relyingParty();
      if (rp === undefined) return invalid('this service has no passkey origin (restart serve with --public-url)');
      const credential = await store.get(assertion.credentialId);
      if (credential === undefined || credential.approver !== approver || credential.removedAt !== undefined) {
        return invalid('not one of your registered passkeys');
      }
      const checked = await checkSignature(assertion, challenge, credential, rp, credential.counter);
      if (!checked.ok) return invalid(checked.message);
      if (!(await store.recordUse(credential.credentialId, checked.newCounter, now))) {
        return invalid('the signature counter did not advance: a replayed or cloned assertion');
      }
      return { ok: true, evidence: { ...assertion, rpId: rp.rpId, origin: rp.origin } };
    },
  };
}

/**
 * `audit verify`'s check of a stored assertion: the same signature check against the
 * registered public key, for the RP id and origin recorded with it. The counter is not
 * checked again (it has moved on since), so it is given as 0.
 */
export const offlineAssertionCheck: OfflineAssertionCheck = async ({ evidence, challenge, credential }) => {
  const checked = await checkSignature(evidence, challenge, credential, { rpId: evidence.rpId, origin: evidence.origin }, 0);
  return checked.ok ? { ok: true } : checked;
};

async function checkSignature(
  assertion: PasskeyAssertion,
  challenge: Uint8Array,
  credential: PasskeyCredential,
  rp: RelyingParty,
  counter: number,
): Promise<{ ok: true; newCounter: number } | { ok: false; message: string }> {
  try {
    const result = await verifyAuthenticationResponse({
      response: {
        id: assertion.credentialId,
        rawId: assertion.credentialId,
        type: 'public-key',
        response: {
          authenticatorData: assertion.authenticatorData,
          clientDataJSON: assertion.clientDataJSON,
          signature: assertion.signature,
          ...(assertion.userHandle === undefined ? {} : { userHandle: assertion.userHandle }),
        },
        clientExtensionResults: {},
      },
      expectedChallenge: Buffer.from(challenge).toString('base64url'),
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      expectedType: 'webauthn.get',
      credential: {
        id: credential.credentialId,
        publicKey: new Uint8Array(Buffer.from(credential.publicKey, 'base64url')),
        counter,
        ...(credential.transports === undefined ? {} : { transports: credential.transports as never }),
      },
      requireUserVerification: true,
    });
    if (!result.verified) return { ok: false, message: 'the signature does not verify' };
    if (!result.authenticationInfo.userVerified) return { ok: false, message: 'the authenticator did not verify the user' };
    return { ok: true, newCounter: result.authenticationInfo.newCounter };
  } catch (error) {
    // The library throws for each mismatch (challenge, origin, RP id, UV, counter, malformed data): all one refusal.
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

function invalid(message: string): PasskeyCheck {
  return { ok: false, reason: 'passkey_invalid', message };
}
