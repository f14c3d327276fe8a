import type { OfflineAssertionCheck } from './evidence-check.ts';
import type { PasskeyAssertion, PasskeyVerifier } from './types.ts';

/**
 * A stand-in for an authenticator in core's tests (the real WebAuthn signature check
 * lives in the server, tested there with Chromium's virtual authenticator): it "signs"
 * by putting the challenge into its client data, and the verifier accepts exactly
 * the challenge it was given, for the approver who owns the credential.
 */
export function testDevice(owner: string, credentialId = `cred-${owner}`) {
  const sign = (challenge: Uint8Array): PasskeyAssertion => ({
    credentialId,
    authenticatorData: 'AAAA',
    clientDataJSON: Buffer.from(JSON.stringify({ challenge: Buffer.from(challenge).toString('base64url') })).toString('base64url'),
    signature: 'c2ln',
  });
  return { owner, credentialId, sign };
}

function challengeOf(assertion: PasskeyAssertion): string {
  return JSON.parse(Buffer.from(assertion.clientDataJSON, 'base64url').toString('utf8')).challenge;
}

export function testVerifier(devices: ReturnType<typeof testDevice>[]): PasskeyVerifier {
  return {
    async verify({ approver, assertion, challenge }) {
      const device = devices.find((d) => d.credentialId === assertion.credentialId);
      if (device === undefined || device.owner !== approver) return { ok: false, reason: 'passkey_invalid', message: 'unknown credential' };
      if (challengeOf(assertion) !== Buffer.from(challenge).toString('base64url')) return { ok: false, reason: 'passkey_invalid', message: 'challenge mismatch' };
      return { ok: true, evidence: { ...assertion, rpId: 'localhost', origin: 'http://localhost' } };
    },
  };
}

export const testOfflineCheck: OfflineAssertionCheck = async ({ evidence, challenge }) =>
  challengeOf(evidence) === Buffer.from(challenge).toString('base64url') ? { ok: true } : { ok: false, message: 'challenge mismatch' };
