import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import type { PasskeyAssertion, PasskeyCredential } from '@countersign/core/passkey';

/**
 * A WebAuthn authenticator in software (ES256), for tests that need real assertions
 * without a browser (CLI, API). It signs exactly what a platform authenticator signs:
 * authenticatorData (RP id hash, flags, counter) followed by SHA-256 of clientDataJSON.
 * The Chromium tests use the browser's own virtual authenticator instead.
 */
export function softAuthenticator(owner: string, options: { rpId?: string; origin?: string; keys?: SoftKeys } = {}) {
  const rpId = options.rpId ?? 'localhost';
  const origin = options.origin ?? 'http://localhost';
  // `keys`: another authenticator's key pair, as an attacker copying a public key would register it.
  const keys: SoftKeys = options.keys ?? generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { privateKey, publicKey } = keys;
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

  /**
   * A registration response (`none` attestation) over `challenge`, as a browser's
   * `navigator.credentials.create` returns it, serialized the way passkey.js sends it.
   */
  const registration = (challenge: string, opts: { userVerified?: boolean; transports?: unknown; cose?: Buffer; credentialId?: Buffer; counter?: number } = {}) => {
    const flags = 0x01 | (opts.userVerified === false ? 0 : 0x04) | 0x40; // UP, UV, attested credential data
    const id = opts.credentialId ?? Buffer.from(credentialId, 'base64url');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const count = Buffer.alloc(4);
    count.writeUInt32BE(opts.counter ?? 0);
    const authData = Buffer.concat([createHash('sha256').update(rpId).digest(), Buffer.from([flags]), count, Buffer.alloc(16), idLength, id, opts.cose ?? cose]);
    // CBOR {"fmt": "none", "attStmt": {}, "authData": bytes}
    const attestationObject = Buffer.concat([
      Buffer.from([0xa3, 0x63, ...Buffer.from('fmt'), 0x64, ...Buffer.from('none'), 0x67, ...Buffer.from('attStmt'), 0xa0, 0x68, ...Buffer.from('authData')]),
      authData.length < 256
        ? Buffer.from([0x58, authData.length])
        : authData.length < 65536
          ? Buffer.from([0x59, authData.length >> 8, authData.length & 0xff])
          : Buffer.from([0x5a, ...u32(authData.length)]),
      authData,
    ]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge, origin, crossOrigin: false }));
    const idText = id.toString('base64url');
    return {
      id: idText,
      rawId: idText,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: 'transports' in opts ? opts.transports : ['internal'],
      },
    };
  };

  return { owner, credentialId, credential, assertion, registration, rpId, origin, keys, cose };
}

export interface SoftKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

function u32(n: number): number[] {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return [...b];
}
