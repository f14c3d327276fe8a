import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RECIPE_ID } from '../canonical/recipe.ts';
import { sha256Hex } from '../digest.ts';
import { APPROVAL_TOKEN_PURPOSE, deriveRunKey } from './derive-run-key.ts';
import { type ExpectedCall, TOKEN_FORMAT_VERSION, TOKEN_TYPE } from './format.ts';
import { generateEd25519Key, hmacKey, Keyring } from './keyring.ts';
import { type MintInput, mintApprovalToken } from './mint.ts';
import { verifyApprovalToken } from './verify.ts';
import { verifyMintedToken } from './verify-minted.ts';

// verifyMintedToken accepts a token without parsing its payload, by comparing the payload
// with the one the minter writes for the ledger's record. Every token below that is not
// exactly that one carries a VALID MAC under the run's key (the tests mint with the key),
// so only the payload comparison and the checks around it can keep the fast path from
// accepting it; the full verification must still give its own answer for each.
const SECRET = Buffer.alloc(32, 3);
const ring = new Keyring([hmacKey('k1', SECRET)]);
const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const nowS = NOW / 1000;
const options = { keyring: ring, now: NOW };

const expected: ExpectedCall = {
  runId: 'run-1',
  sessionId: 's-1',
  callId: 'c-1',
  toolName: 'transfer',
  definitionDigest: 'd'.repeat(64),
  argsDigest: sha256Hex('{"amount":10}'),
  principal: 'user:1',
};
const record: MintInput = {
  run: 'run-1',
  sid: 's-1',
  call: 'c-1',
  tool: 'transfer',
  def: 'd'.repeat(64),
  args: expected.argsDigest,
  sub: 'user:1',
  apr: ['alice', 'bob'],
  req: 'req-1',
  iat: nowS - 10,
  exp: nowS + 300,
  jti: 'tok-1',
};

const enc = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const HEADER = enc(JSON.stringify({ alg: 'HS256', typ: TOKEN_TYPE, kid: 'k1' }));
/** A token over exactly `payloadText`, MACed with the real per-run key. */
function signed(payloadText: string, header = HEADER): string {
  const input = `${header}.${enc(payloadText)}`;
  return `${input}.${createHmac('sha256', deriveRunKey(SECRET, 'run-1', APPROVAL_TOKEN_PURPOSE)).update(input).digest('base64url')}`;
}
const claimsText = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({ v: TOKEN_FORMAT_VERSION, canon: RECIPE_ID, ...record, ...overrides });

const fast = (token: unknown, minted: MintInput = record) => verifyMintedToken(token, minted, expected, options);
const full = (token: unknown) => verifyApprovalToken(token, expected, options);

describe('approval tokens recognised as minted from the ledger record', () => {
  it("accepts the minter's token for the record, with the full verification's answer", () => {
    const token = mintApprovalToken(record, ring);
    full(token); // the header is seen once by the full path first, as the gate's first verify does
    expect(fast(token)).toEqual(full(token));
    expect(fast(token)).toMatchObject({ ok: true, kid: 'k1', claims: { jti: 'tok-1', apr: ['alice', 'bob'] } });
    // The same bytes built here, so the fixture below is the minter's own form.
    expect(signed(claimsText())).toBe(token);
  });

  it('leaves a validly MACed token whose payload differs from the record to the full verification', () => {
    full(mintApprovalToken(record, ring));
    const variants = [
      claimsText({ args: sha256Hex('{"amount":10000}') }), // other arguments: full says args_mismatch
      claimsText({ jti: 'tok-2' }), // another token id: full accepts, consume refuses it
      claimsText({ exp: nowS + 999_999 }), // a longer life
      claimsText({ apr: ['mallory'] }),
      claimsText({ extra: 1 }), // a claim the reader refuses
      `${claimsText().slice(0, -1)},"args":"${'0'.repeat(64)}"}`, // a duplicate claim
      JSON.stringify({ canon: RECIPE_ID, v: TOKEN_FORMAT_VERSION, ...record }), // same claims, other order
      claimsText().replace(',', ', '), // whitespace
    ];
    for (const text of variants) {
      const token = signed(text);
      expect(fast(token), text).toBeUndefined();
    }
    expect(full(signed(variants[0]!))).toMatchObject({ ok: false, reason: 'args_mismatch' });
    expect(full(signed(variants[5]!))).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('refuses the record’s own payload under a bad or non-canonical signature, or a header not checked before', () => {
    const token = mintApprovalToken(record, ring);
    full(token);
    const [h, p, s] = token.split('.') as [string, string, string];
    const flipped = `${s.slice(0, 5)}${s[5] === 'A' ? 'B' : 'A'}${s.slice(6)}`;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = `${s.slice(0, -1)}${alphabet[alphabet.indexOf(s.at(-1)!) | 1]}`; // same bytes, extra bits
    for (const bad of [`${h}.${p}.${flipped}`, `${h}.${p}.${respelled}`, `${h}.${p}.${s}=`, `${h}.${p}.`, `${h}.${p}`, `${h}.${p}.${s}.x`]) {
      expect(fast(bad), bad).toBeUndefined();
      expect(full(bad)).toMatchObject({ ok: false });
    }
    // A header with an extra parameter, MACed: never accepted by the full path, so never cached as accepted.
    const odd = enc(JSON.stringify({ alg: 'HS256', typ: TOKEN_TYPE, kid: 'k1', jku: 'https://x' }));
    const withOdd = signed(claimsText(), odd);
    expect(full(withOdd)).toMatchObject({ ok: false, reason: 'malformed' });
    expect(fast(withOdd)).toBeUndefined();
    // An acceptable header the process has not split yet: the fast path does not parse it.
    const unseen = enc(JSON.stringify({ kid: 'k1', alg: 'HS256', typ: TOKEN_TYPE }));
    expect(fast(signed(claimsText(), unseen))).toBeUndefined();
  });

  it('refuses the exact minted token when time, run or binding fail, or its claims would not be read', () => {
    const token = mintApprovalToken(record, ring);
    full(token);
    expect(verifyMintedToken(token, record, expected, { keyring: ring, now: (record.exp + 10) * 1000 })).toBeUndefined();
    expect(verifyMintedToken(token, record, { ...expected, principal: 'user:2' }, options)).toBeUndefined();
    expect(verifyMintedToken(token, record, { ...expected, runId: 'run-2' }, options)).toBeUndefined();
    for (const odd of [{ apr: [] }, { exp: record.iat }, { iat: 1.5 }, { jti: '' }] satisfies Partial<MintInput>[]) {
      const minted = { ...record, ...odd };
      const oddToken = mintApprovalToken(minted, ring);
      expect(fast(oddToken, minted), JSON.stringify(odd)).toBeUndefined();
    }
  });

  it('leaves a record with a lone surrogate to the full verification, whose strict parser refuses it', () => {
    const lone = { ...record, sid: 's-\ud800' };
    const loneExpected = { ...expected, sessionId: 's-\ud800' };
    const token = mintApprovalToken(lone, ring);
    expect(verifyApprovalToken(token, loneExpected, options)).toMatchObject({ ok: false, reason: 'malformed' });
    expect(verifyMintedToken(token, lone, loneExpected, options)).toBeUndefined();
  });

  it('takes the key and algorithm from the keyring: an Ed25519 token, a retired key', () => {
    const ed = new Keyring([generateEd25519Key('ed1')]);
    const edToken = mintApprovalToken(record, ed);
    verifyApprovalToken(edToken, expected, { keyring: ed, now: NOW });
    expect(verifyMintedToken(edToken, record, expected, { keyring: ed, now: NOW })).toMatchObject({ ok: true, kid: 'ed1' });
    const token = mintApprovalToken(record, ring);
    full(token);
    expect(fast(token)).toMatchObject({ ok: true });
    expect(verifyMintedToken(token, record, expected, { keyring: new Keyring([hmacKey('k2', SECRET)]), now: NOW })).toBeUndefined();
    expect(verifyMintedToken(token, record, expected, { keyring: ed, now: NOW })).toBeUndefined();
  });

  it('never throws on junk', () => {
    for (const junk of [undefined, null, 42, '', '.', '..', 'a.b.c', {}, 'x'.repeat(10_000)]) {
      expect(fast(junk)).toBeUndefined();
    }
  });
});
