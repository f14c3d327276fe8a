import { describe, expect, it } from 'vitest';
import { buildRecord, GENESIS_HASH, hashRecord } from './chain.ts';
import { chainOf, sampleAuditEvent } from './test-fixtures.ts';
import type { AuditRecord } from './types.ts';
import { ChainVerifier, verifyChain, verifyChainAsync } from './verify-chain.ts';

function headOf(records: AuditRecord[]): { seq: number; hash: string } {
  const last = records.at(-1)!;
  return { seq: last.seq, hash: last.hash };
}

/** A copy of `records` where record `index` is replaced by `change(copy of it)`. */
function withEdit(records: AuditRecord[], index: number, change: (r: Record<string, unknown>) => void): unknown[] {
  const copy: unknown[] = structuredClone(records);
  change(copy[index] as Record<string, unknown>);
  return copy;
}

describe('verifyChain', () => {
  it('accepts an intact chain and reports its head', () => {
    const records = chainOf(50);
    expect(verifyChain(records)).toEqual({ ok: true, count: 50, head: headOf(records) });
    expect(verifyChain(records, { anchor: headOf(records) })).toEqual({ ok: true, count: 50, head: headOf(records) });
  });

  it('accepts an empty chain', () => {
    expect(verifyChain([])).toEqual({ ok: true, count: 0 });
  });

  describe('detects an edited record at its own position', () => {
    const records = chainOf(5, (i) => sampleAuditEvent(i, { proposalId: undefined }));
    const edits: [string, (r: Record<string, unknown>) => void][] = [
      ['a string field', (r) => (r.actor = 'mallory')],
      ['the tool name', (r) => (r.toolName = 'delete_everything')],
      ['the argument digest', (r) => (r.argsDigest = 'b'.repeat(64))],
      ['the type', (r) => (r.type = 'rejection')],
      ['the time', (r) => (r.at = (r.at as number) + 1)],
      ['a nested detail value', (r) => ((r.detail as { nested: { list: unknown[] } }).nested.list[1] = 'three')],
      ['a detail key', (r) => ((r.detail as Record<string, unknown>).extra = 1)],
      ['the whole detail', (r) => delete r.detail],
      ['an optional field removed', (r) => delete r.reason],
      ['an optional field added', (r) => (r.proposalId = 'prop-3')],
      ['the hash', (r) => (r.hash = 'c'.repeat(64))],
    ];
    for (const [name, edit] of edits) {
      it(name, () => {
        expect(verifyChain(withEdit(records, 2, edit))).toMatchObject({ ok: false, index: 2, seq: 3, reason: 'hash_mismatch' });
      });
    }

    it('seq', () => {
      expect(verifyChain(withEdit(records, 2, (r) => (r.seq = 4)))).toMatchObject({ ok: false, index: 2, reason: 'seq_gap' });
    });

    it('prevHash', () => {
      expect(verifyChain(withEdit(records, 2, (r) => (r.prevHash = 'd'.repeat(64))))).toMatchObject({
        ok: false,
        index: 2,
        reason: 'prev_hash_mismatch',
      });
    });

    it('the first record seq or prevHash', () => {
      expect(verifyChain(withEdit(records, 0, (r) => (r.seq = 2)))).toMatchObject({ index: 0, reason: 'bad_genesis' });
      expect(verifyChain(withEdit(records, 0, (r) => (r.prevHash = 'e'.repeat(64))))).toMatchObject({
        index: 0,
        reason: 'bad_genesis',
      });
    });

    it('an edit with every later hash recomputed passes alone, and fails against an anchor', () => {
      const forged: AuditRecord[] = records.slice(0, 2);
      for (const r of records.slice(2)) {
        const event = { ...r, actor: r.seq === 3 ? 'mallory' : r.actor };
        forged.push(buildRecord(forged.at(-1), event));
      }
      expect(verifyChain(forged).ok).toBe(true);
      expect(verifyChain(forged, { anchor: headOf(records) })).toMatchObject({
        ok: false,
        index: 4,
        reason: 'anchor_mismatch',
      });
    });
  });

  it('detects two swapped records', () => {
    const records = chainOf(6);
    const swapped = [...records];
    [swapped[1], swapped[4]] = [swapped[4]!, swapped[1]!];
    expect(verifyChain(swapped)).toMatchObject({ ok: false, index: 1, seq: 5, reason: 'seq_gap' });
    // Swapped with seq numbers swapped back: the links still break.
    const renumbered = structuredClone(swapped);
    renumbered[1]!.seq = 2;
    renumbered[4]!.seq = 5;
    expect(verifyChain(renumbered)).toMatchObject({ ok: false, index: 1, reason: 'prev_hash_mismatch' });
  });

  it('detects an inserted record whose hash is right for a wrong prevHash', () => {
    const records = chainOf(5);
    const event = sampleAuditEvent(99, { actor: 'mallory' });
    const prevHash = 'f'.repeat(64);
    const fabricated: AuditRecord = { seq: 3, prevHash, hash: hashRecord(prevHash, 3, event), ...event };
    const tampered = [...records.slice(0, 2), fabricated, ...records.slice(2)];
    expect(verifyChain(tampered)).toMatchObject({ ok: false, index: 2, seq: 3, reason: 'prev_hash_mismatch' });
  });

  it('detects an inserted record with a correctly recomputed hash at the next record', () => {
    const records = chainOf(5);
    const fabricated = buildRecord(records[1], sampleAuditEvent(99, { actor: 'mallory' }));
    const tampered = [...records.slice(0, 2), fabricated, ...records.slice(2)];
    expect(verifyChain(tampered)).toMatchObject({ ok: false, index: 3, seq: 3, reason: 'seq_gap' });
    // Renumbering the records after it does not help: their prevHash does not link to it.
    const renumbered = structuredClone(tampered);
    for (let i = 3; i < renumbered.length; i++) renumbered[i]!.seq = i + 1;
    expect(verifyChain(renumbered)).toMatchObject({ ok: false, index: 3, reason: 'prev_hash_mismatch' });
  });

  it('detects a record dropped from the middle', () => {
    const records = chainOf(5);
    const dropped = [...records.slice(0, 2), ...records.slice(3)];
    expect(verifyChain(dropped)).toMatchObject({ ok: false, index: 2, seq: 4, reason: 'seq_gap' });
    const first = records.slice(1);
    expect(verifyChain(first)).toMatchObject({ ok: false, index: 0, seq: 2, reason: 'bad_genesis' });
  });

  it('detects records dropped from the end only against an anchor', () => {
    const records = chainOf(5);
    const anchor = headOf(records);
    const shortened = records.slice(0, 3);
    // Documented limitation: a prefix of a valid chain is a valid chain.
    expect(verifyChain(shortened)).toEqual({ ok: true, count: 3, head: headOf(shortened) });
    expect(verifyChain(shortened, { anchor })).toMatchObject({ ok: false, index: 3, seq: 4, reason: 'truncated' });
    expect(verifyChain([], { anchor })).toMatchObject({ ok: false, index: 0, seq: 1, reason: 'truncated' });
  });

  it('accepts a chain that has grown past the anchor: a live log keeps growing', () => {
    const records = chainOf(5);
    expect(verifyChain(records, { anchor: headOf(records.slice(0, 4)) })).toEqual({ ok: true, count: 5, head: headOf(records) });
    expect(verifyChain(records, { anchor: headOf(records.slice(0, 1)) })).toEqual({ ok: true, count: 5, head: headOf(records) });
    expect(verifyChain(records.slice(0, 1), { anchor: { seq: 0, hash: GENESIS_HASH } })).toMatchObject({ ok: true, count: 1 });
  });

  it('still rejects a grown chain whose record at the anchor seq differs', () => {
    const records = chainOf(5);
    const other = chainOf(5, (i) => sampleAuditEvent(i, { actor: 'someone-else' }));
    expect(verifyChain(records, { anchor: headOf(other.slice(0, 3)) })).toMatchObject({
      ok: false,
      index: 2,
      seq: 3,
      reason: 'anchor_mismatch',
    });
  });

  it('verifies a suffix from a trusted head', () => {
    const records = chainOf(10);
    const from = headOf(records.slice(0, 4));
    expect(verifyChain(records.slice(4), { from, anchor: headOf(records) })).toEqual({
      ok: true,
      count: 6,
      head: headOf(records),
    });
    expect(verifyChain([], { from })).toEqual({ ok: true, count: 0, head: from });
    expect(verifyChain(records.slice(5), { from })).toMatchObject({ ok: false, index: 0, reason: 'seq_gap' });
    expect(verifyChain(records.slice(4), { from: { seq: 4, hash: 'a'.repeat(64) } })).toMatchObject({
      ok: false,
      index: 0,
      reason: 'prev_hash_mismatch',
    });
  });

  it('rejects nonsensical options as a programming error', () => {
    expect(() => verifyChain([], { anchor: { seq: -1, hash: GENESIS_HASH } })).toThrow(TypeError);
    expect(() => verifyChain([], { from: { seq: 1, hash: 'xyz' } })).toThrow(TypeError);
    expect(() => verifyChain([], { from: { seq: 0, hash: 'a'.repeat(64) } })).toThrow(TypeError);
    expect(() => verifyChain([], { from: { seq: 5, hash: 'a'.repeat(64) }, anchor: { seq: 4, hash: 'a'.repeat(64) } })).toThrow(
      TypeError,
    );
  });

  describe('reports malformed records without throwing', () => {
    const records = chainOf(3);
    const throwing = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    const cases: [string, unknown, number | undefined][] = [
      ['null', null, undefined],
      ['a string', 'record', undefined],
      ['an array', [1, 2], undefined],
      ['a proxy that throws', throwing, undefined],
      ['missing type', withEdit(records, 1, (r) => delete r.type)[1], 2],
      ['unknown type', withEdit(records, 1, (r) => (r.type = 'launch'))[1], 2],
      ['at as a string', withEdit(records, 1, (r) => (r.at = '1767225600000'))[1], 2],
      ['seq zero', withEdit(records, 1, (r) => (r.seq = 0))[1], undefined],
      ['seq as a string', withEdit(records, 1, (r) => (r.seq = '2'))[1], undefined],
      ['fractional seq', withEdit(records, 1, (r) => (r.seq = 1.5))[1], undefined],
      ['hash missing', withEdit(records, 1, (r) => delete r.hash)[1], 2],
      ['hash too short', withEdit(records, 1, (r) => (r.hash = 'abc'))[1], 2],
      ['prevHash a number', withEdit(records, 1, (r) => (r.prevHash = 7))[1], 2],
      ['an unknown field', withEdit(records, 1, (r) => (r.note = 'hi'))[1], 2],
      ['a null optional field', withEdit(records, 1, (r) => (r.actor = null))[1], 2],
      ['a non-hex argsDigest', withEdit(records, 1, (r) => (r.argsDigest = 'z'.repeat(64)))[1], 2],
      ['a lone surrogate', withEdit(records, 1, (r) => (r.actor = '\ud800'))[1], 2],
      ['detail an array', withEdit(records, 1, (r) => (r.detail = [1]))[1], 2],
      ['Infinity in detail (JSON 1e999)', JSON.parse(JSON.stringify(records[1]).replace('"n":2', '"n":1e999')), 2],
      ['deeply nested detail', withEdit(records, 1, (r) => (r.detail = JSON.parse(`${'['.repeat(5000)}${']'.repeat(5000)}`)))[1], 2],
    ];
    for (const [name, bad, seq] of cases) {
      it(name, () => {
        const input = [records[0], bad, records[2]];
        const result = verifyChain(input);
        expect(result).toMatchObject({ ok: false, index: 1, reason: 'malformed' });
        expect(result.ok === false && result.seq).toBe(seq);
      });
    }
  });

  it('accepts records parsed back from JSON', () => {
    const records = JSON.parse(JSON.stringify(chainOf(20))) as unknown[];
    expect(verifyChain(records)).toMatchObject({ ok: true, count: 20 });
  });

  it('accepts any iterable, and async iterables through verifyChainAsync', async () => {
    const records = chainOf(10);
    function* sync() {
      yield* records;
    }
    async function* stream(list: unknown[]) {
      for (const r of list) yield r;
    }
    expect(verifyChain(sync())).toMatchObject({ ok: true, count: 10 });
    expect(await verifyChainAsync(stream(records), { anchor: headOf(records) })).toMatchObject({ ok: true, count: 10 });
    expect(await verifyChainAsync(records)).toMatchObject({ ok: true, count: 10 });
    const tampered = withEdit(records, 6, (r) => (r.actor = 'mallory'));
    expect(await verifyChainAsync(stream(tampered))).toMatchObject({ ok: false, index: 6, reason: 'hash_mismatch' });
    expect(await verifyChainAsync(stream(records.slice(0, 9)), { anchor: headOf(records) })).toMatchObject({
      ok: false,
      reason: 'truncated',
    });
  });

  it('ChainVerifier sticks to the first failure', () => {
    const records = chainOf(4);
    const verifier = new ChainVerifier();
    expect(verifier.push(records[0])).toBeUndefined();
    const failure = verifier.push(records[2]);
    expect(failure).toMatchObject({ ok: false, index: 1, reason: 'seq_gap' });
    expect(verifier.push(records[1])).toBe(failure);
    expect(verifier.finish()).toBe(failure);
  });

  it('verifies 100,000 records without trouble (sanity, not a benchmark)', () => {
    const records = chainOf(100_000, (i) => sampleAuditEvent(i));
    expect(verifyChain(records)).toMatchObject({ ok: true, count: 100_000, head: headOf(records) });
    const tampered = [...records];
    tampered[77_777] = { ...records[77_777]!, reason: 'edited' };
    expect(verifyChain(tampered)).toMatchObject({ ok: false, index: 77_777, reason: 'hash_mismatch' });
  });
});
