import { createHmac, createSecretKey, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { ArgumentCase } from './arguments.ts';
import type { BenchCase } from './harness.ts';

// The one-shot form, as the gate hashes: the limit is the cheapest way to do the required crypto
// (createHash costs several times more on short inputs, which would flatter the gate's ratio).
const sha256Hex = (text: string) => hash('sha256', text, 'hex');

/**
 * The physical-limit loop: the crypto the invariants require of one dispatch and nothing
 * else: one HMAC-SHA256 verify of the token's signing input (KeyObject key, made once),
 * one SHA-256 of the canonical arguments text, one SHA-256 of an audit record's text.
 * The texts are built once: serializing them is the gate's work, not the limit's.
 */
export function physicalLimitCase(arg: ArgumentCase, token: string, record: string): BenchCase {
  const key = createSecretKey(randomBytes(32));
  const dot = token.lastIndexOf('.');
  const signingInput = token.slice(0, dot);
  const expected = createHmac('sha256', key).update(signingInput).digest();
  const argsText = JSON.stringify(arg.args);
  return {
    name: `physical-limit loop, ${arg.label}`,
    note: 'HMAC-SHA256(token signing input, KeyObject made once) + timingSafeEqual, one-shot SHA-256(canonical args text), one-shot SHA-256(audit record text); texts prebuilt',
    prepare: (ops) => () => {
      for (let i = 0; i < ops; i++) {
        const tag = createHmac('sha256', key).update(signingInput).digest();
        if (!timingSafeEqual(tag, expected)) throw new Error('tag mismatch');
        sha256Hex(argsText);
        sha256Hex(record);
      }
    },
  };
}

/**
 * The physical-limit loop plus the one non-crypto step a dispatch cannot skip: parsing the
 * arguments into the fresh object the tool receives (JSON.parse of the canonical text). The
 * dispatch target is read against this row (LIMIT_CHOICE in gate-throughput.ts says why).
 */
export function physicalLimitWithArgsParseCase(arg: ArgumentCase, token: string, record: string): BenchCase {
  const limit = physicalLimitCase(arg, token, record);
  const argsText = JSON.stringify(arg.args);
  return {
    name: `physical-limit loop + args JSON.parse, ${arg.label}`,
    note: "the physical-limit loop, then JSON.parse(canonical args text): the tool's own copy of its arguments",
    prepare: async (ops) => {
      const crypto = await limit.prepare(ops);
      return () => {
        crypto();
        for (let i = 0; i < ops; i++) JSON.parse(argsText);
      };
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
 * (b) jose HS256 with the key imported ONCE, doing the gate's work: jwtVerify, then the
 * args claim checked against a SHA-256 of the arguments text computed per op (the gate
 * re-hashes the ledger's arguments per dispatch too).
 */
export async function joseCase(arg: ArgumentCase): Promise<BenchCase> {
  const secret = new Uint8Array(randomBytes(32));
  const argsText = JSON.stringify(arg.args);
  const jwt = await signedJwt(secret, sha256Hex(argsText));
  const key = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  return {
    name: `(b) jose jwtVerify, key imported once, ${arg.label}`,
    note: 'jwtVerify(jwt, CryptoKey, HS256) + sha256(args text) per op === args claim',
    prepare: (ops) => async () => {
      for (let i = 0; i < ops; i++) {
        const { payload } = await jwtVerify(jwt, key, { algorithms: ['HS256'] });
        if (payload.args !== sha256Hex(argsText)) throw new Error('args claim mismatch');
      }
    },
  };
}

/** (b') jose, key imported once, args claim against a precomputed digest: the same work as verifyApprovalToken alone. */
export async function joseVerifyOnlyCase(arg: ArgumentCase): Promise<BenchCase> {
  const secret = new Uint8Array(randomBytes(32));
  const digest = sha256Hex(JSON.stringify(arg.args));
  const jwt = await signedJwt(secret, digest);
  const key = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  return {
    name: `(b') jose jwtVerify only, key imported once, ${arg.label}`,
    note: 'jwtVerify(jwt, CryptoKey, HS256) + args claim === precomputed digest (no args hashing, like verifyApprovalToken)',
    prepare: (ops) => async () => {
      for (let i = 0; i < ops; i++) {
        const { payload } = await jwtVerify(jwt, key, { algorithms: ['HS256'] });
        if (payload.args !== digest) throw new Error('args claim mismatch');
      }
    },
  };
}
