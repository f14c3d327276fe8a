import { describe, expect, it } from 'vitest';
import { encodeSegment } from './jws.ts';
import { hmacKey, Keyring } from './keyring.ts';
import { signWith } from './sign.ts';
import { type SignedKind, verifySigned } from './verify-signed.ts';

const ring = new Keyring([hmacKey('k1', Buffer.alloc(32, 3))]);
const TYP = 'countersign-test+jwt';

function kindCountingReads(): { kind: SignedKind<{ n: number }>; reads: () => number } {
  let reads = 0;
  const kind: SignedKind<{ n: number }> = {
    typ: TYP,
    purpose: 'countersign/test',
    noun: 'test object',
    readClaims(payload) {
      reads += 1;
      return typeof payload.n === 'number' ? { ok: true, claims: { n: payload.n } } : { ok: false, reason: 'malformed', message: 'n' };
    },
  };
  return { kind, reads: () => reads };
}

function signed(kind: SignedKind<unknown>, payload: unknown, salt: string): string {
  const input = `${encodeSegment({ alg: 'HS256', typ: TYP, kid: 'k1' })}.${encodeSegment(payload)}`;
  return `${input}.${signWith(ring, ring.active(), salt, input, kind.purpose).toString('base64url')}`;
}

describe('verifySigned: the shared path', () => {
  it('with the run known up front, a forged signature is refused before the payload is read', () => {
    const { kind, reads } = kindCountingReads();
    const forged = signed(kind, { n: 1 }, 'another-run');
    expect(verifySigned(kind, forged, ring, { known: 'run-1' })).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(reads()).toBe(0);
    expect(verifySigned(kind, signed(kind, { n: 1 }, 'run-1'), ring, { known: 'run-1' })).toEqual({ ok: true, claims: { n: 1 }, kid: 'k1' });
    expect(reads()).toBe(1);
  });

  it('the key comes from the claims only for kinds that name their own run, and then they are read first', () => {
    const { kind, reads } = kindCountingReads();
    const token = signed(kind, { n: 7 }, 'run-7');
    expect(verifySigned(kind, token, ring, { fromClaims: (c) => `run-${c.n}` })).toMatchObject({ ok: true });
    expect(verifySigned(kind, token, ring, { fromClaims: () => 'run-8' })).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(reads()).toBe(2);
  });

  it('the purpose separates kinds sharing a key: the same bytes under another purpose do not verify', () => {
    const { kind } = kindCountingReads();
    const token = signed(kind, { n: 1 }, 'run-1');
    const other = { ...kind, purpose: 'countersign/other' };
    expect(verifySigned(other, token, ring, { known: 'run-1' })).toMatchObject({ ok: false, reason: 'bad_signature' });
  });
});
