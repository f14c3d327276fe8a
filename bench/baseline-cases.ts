import { createHash, createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { ArgumentCase } from './arguments.ts';
import type { BenchCase } from './harness.ts';

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * (a) The least any call-bound check can do: MAC the arguments and compare in constant
 * time. The key is a KeyObject made once: on Node 24, createHmac with a raw Buffer key
 * re-validates the key on every call and is about 10× slower (see bareLoopBufferKeyCase).
 */
export function bareLoopCase(arg: ArgumentCase): BenchCase {
  return bareLoop(arg, createSecretKey(randomBytes(32)), '(a) bare HMAC loop', 'KeyObject key');
}

/** (a') The same loop with the key as a Buffer, as `createHmac('sha256', buffer)` is usually written. */
export function bareLoopBufferKeyCase(arg: ArgumentCase): BenchCase {
  return bareLoop(arg, randomBytes(32), "(a') bare loop, Buffer key", 'Buffer key (Node re-checks it per call)');
}

function bareLoop(arg: ArgumentCase, key: KeyObject | Buffer, label: string, keyNote: string): BenchCase {
  const expected = createHmac('sha256', key).update(JSON.stringify(arg.args)).digest();
  return {
    name: `${label}, ${arg.label}`,
    note: `JSON.stringify(args) + createHmac(sha256, ${keyNote}).digest + timingSafeEqual vs expected tag`,
    prepare: (ops) => () => {
      for (let i = 0; i < ops; i++) {
        const tag = createHmac('sha256', key).update(JSON.stringify(arg.args)).digest();
        if (!timingSafeEqual(tag, expected)) throw new Error('tag mismatch');
      }
    },
  };
}

/** A JWT carrying the same kind of claims as an approval token, args digest included. */
async function signedJwt(secret: Uint8Array, argsDigest: string): Promise<string> {
  return new SignJWT({ run: 'run-bench', sid: 'session-bench', call: 'call-1', tool: 'bulk_update', args: argsDigest, apr: ['approver-1'] })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('user:bench')
    .setJti('7f0c4b8e-2d7a-4c55-9a61-0d3c2f4b9e11')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(secret);
}

/**
 * (b) jose HS256 as its docs show it: `jwtVerify` with the secret bytes (jose imports
 * a WebCrypto key on every call), then the args-digest claim checked against a digest
 * of the arguments computed per op, as the gate and the bare loop also hash per op.
 */
export async function joseCase(arg: ArgumentCase): Promise<BenchCase> {
  const secret = new Uint8Array(randomBytes(32));
  const jwt = await signedJwt(secret, sha256Hex(JSON.stringify(arg.args)));
  return {
    name: `(b) jose jwtVerify, ${arg.label}`,
    note: 'jwtVerify(jwt, secretBytes, HS256) + sha256(JSON.stringify(args)) per op === args claim',
    prepare: (ops) => async () => {
      for (let i = 0; i < ops; i++) {
        const { payload } = await jwtVerify(jwt, secret, { algorithms: ['HS256'] });
        if (payload.args !== sha256Hex(JSON.stringify(arg.args))) throw new Error('args claim mismatch');
      }
    },
  };
}

/**
 * (b') jose at its fastest: the key imported once, the args claim compared with a
 * precomputed digest (what verifyApprovalToken alone does). Shown for context.
 */
export async function joseFastCase(arg: ArgumentCase): Promise<BenchCase> {
  const secret = new Uint8Array(randomBytes(32));
  const digest = sha256Hex(JSON.stringify(arg.args));
  const jwt = await signedJwt(secret, digest);
  const key = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  return {
    name: `(b') jose, key imported once, ${arg.label}`,
    note: 'jwtVerify(jwt, CryptoKey, HS256) + args claim === precomputed digest (no per-op args hashing)',
    prepare: (ops) => async () => {
      for (let i = 0; i < ops; i++) {
        const { payload } = await jwtVerify(jwt, key, { algorithms: ['HS256'] });
        if (payload.args !== digest) throw new Error('args claim mismatch');
      }
    },
  };
}
