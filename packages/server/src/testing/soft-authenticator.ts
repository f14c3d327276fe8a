import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import type { PasskeyAssertion, PasskeyCredential } from '@countersign/core/passkey';

/**
 * A WebAuthn authenticator in software (ES256), for tests that need real assertions
 * without a browser (CLI, API). It signs exactly what a platform authenticator signs:
 * authenticatorData (RP id hash, flags, counter) followed by SHA-256 of clientDataJSON.
 * The Chromium tests use the browser's own virtual authenticator instead.
 */
export function softAuthenticator(owner: string, options: { rpId?: string; origin?: string } = {}) {
  const rpId = options.rpId ?? 'localhost';
  const origin = options.origin ?? 'http://localhost';
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const x = Buffer.from(jwk.x ?? '', 'base64url');
  const y = Buffer.from(jwk.y ?? '', 'base64url');
  // COSE_Key (RFC 9053) in CBOR: {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}.
  const cose = Buffer.concat([Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]), x, Buffer.from([0x22, 0x58, 0x20]), y]);
  const credentialId = createHash('sha256').update(`soft ${owner} ${x.toString('hex')}`).digest().subarray(0, 16).toString('base64url');
  let counter = 0;

  const credential = (createdAt = 0): PasskeyCredential => ({
    credentialId,
    approver: owner,
    publicKey: cose.toString('base64url'),
    counter: 0,
    label: `${owner}'s test key`,
    createdAt,
  });

  /** An assertion over `challenge`; `userVerified: false` leaves the UV flag out, `rpId`/`origin` can be another site's. */
  const assertion = (challenge: Uint8Array, opts: { userVerified?: boolean; rpId?: string; origin?: string; counter?: number } = {}): PasskeyAssertion => {
    counter = opts.counter ?? counter + 1;
    const flags = 0x01 | (opts.userVerified === false ? 0 : 0x04);
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const authenticatorData = Buffer.concat([createHash('sha256').update(opts.rpId ?? rpId).digest(), Buffer.from([flags]), count]);
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: Buffer.from(challenge).toString('base64url'), origin: opts.origin ?? origin, crossOrigin: false }),
    );
    const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]), privateKey);
    return {
      credentialId,
      authenticatorData: authenticatorData.toString('base64url'),
      clientDataJSON: clientDataJSON.toString('base64url'),
      signature: signature.toString('base64url'),
    };
  };

  return { owner, credentialId, credential, assertion, rpId, origin };
}
