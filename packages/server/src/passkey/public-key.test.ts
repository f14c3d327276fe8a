import { generateKeyPairSync } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { describe, expect, it } from 'vitest';
import { softAuthenticator } from '../testing/soft-authenticator.ts';
import { publicKeyId, readCosePublicKey } from './public-key.ts';

const encode = (entries: [number, unknown][]) => Buffer.from(isoCBOR.encode(new Map(entries) as Parameters<typeof isoCBOR.encode>[0]));

describe('readCosePublicKey: a passkey public key is read in full, and named whatever its encoding', () => {
  const key = softAuthenticator('fiona');
  const x = key.cose.subarray(10, 42);
  const y = key.cose.subarray(45, 77);

  it('one key in another COSE map order is the same key: same canonical text, same id', () => {
    const reordered = encode([[-3, y], [-2, x], [-1, 1], [3, -7], [1, 2]]);
    expect(reordered.equals(key.cose)).toBe(false);
    const a = readCosePublicKey(key.cose);
    const b = readCosePublicKey(reordered);
    expect(a).toMatchObject({ ok: true, algorithm: -7 });
    expect(b).toEqual(a);
    expect(publicKeyId(reordered.toString('base64url'))).toBe(publicKeyId(key.cose.toString('base64url')));
  });

  it('accepts Ed25519 with EdDSA; refuses a wrong curve, an algorithm that does not fit, an extra parameter, junk', () => {
    const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    const edX = Buffer.from(ed.x ?? '', 'base64url');
    expect(readCosePublicKey(encode([[1, 1], [3, -8], [-1, 6], [-2, edX]]))).toMatchObject({ ok: true, algorithm: -8 });
    expect(readCosePublicKey(encode([[1, 1], [3, -7], [-1, 6], [-2, edX]]))).toMatchObject({ ok: false, message: expect.stringMatching(/EdDSA/) });
    expect(readCosePublicKey(encode([[1, 2], [3, -7], [-1, 2], [-2, x], [-3, y]]))).toMatchObject({ ok: false, message: expect.stringMatching(/P-256/) });
    expect(readCosePublicKey(encode([[1, 2], [3, -7], [-1, 1], [-2, x], [-3, y], [-4, x]]))).toMatchObject({ ok: false, message: expect.stringMatching(/unexpected COSE parameter/) });
    expect(readCosePublicKey(new Uint8Array([0xff, 0x00]))).toMatchObject({ ok: false });
    expect(publicKeyId('not-cose')).toBeUndefined();
  });
});
