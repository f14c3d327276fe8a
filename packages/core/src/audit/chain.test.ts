import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeCanonical } from '../canonical/serialize.ts';
import { sha256Hex } from '../digest.ts';
import { buildRecord, canonicalRecordText, GENESIS_HASH, hashRecord } from './chain.ts';
import { AUDIT_EVENT_TYPES, auditEventProblem } from './record-shape.ts';
import { sampleAuditEvent } from './test-fixtures.ts';
import type { AuditEvent, AuditValue } from './types.ts';

const OPTIONAL_STRING_FIELDS = [
  'runId',
  'sessionId',
  'callId',
  'proposalId',
  'requestId',
  'toolName',
  'argsDigest',
  'actor',
  'reason',
] as const;

// Strings that stress JSON escaping: quotes, backslashes, controls, U+2028, astral characters.
const trickyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028\u2029', '😀', 'é', '\ud83d\ude00', '</script>'),
);
const detail: fc.Arbitrary<{ [key: string]: AuditValue }> = fc.dictionary(
  trickyString,
  fc.jsonValue() as fc.Arbitrary<AuditValue>,
);
// Every field optional except type and at; `undefined` must behave exactly like absent.
const event: fc.Arbitrary<AuditEvent> = fc.record(
  {
    type: fc.constantFrom(...AUDIT_EVENT_TYPES),
    at: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
    runId: fc.option(trickyString, { nil: undefined }),
    sessionId: trickyString,
    callId: trickyString,
    proposalId: trickyString,
    requestId: trickyString,
    toolName: trickyString,
    argsDigest: trickyString,
    actor: trickyString,
    reason: trickyString,
    detail,
  },
  { requiredKeys: ['type', 'at'] },
);

describe('canonicalRecordText', () => {
  it('is RFC 8785 of { ...event, seq, prevHash }, byte for byte', () => {
    fc.assert(
      fc.property(event, fc.integer({ min: 1 }), trickyString, (e, seq, prevHash) => {
        expect(canonicalRecordText(prevHash, seq, e)).toBe(serializeCanonical({ ...e, seq, prevHash }));
      }),
      { numRuns: 2000 },
    );
  });

  // Flat details (the gate's own: ids, digests, verdicts) are written by hand; hold those to JCS too.
  it('writes flat details byte for byte as RFC 8785, including -0, exponents and escapes', () => {
    const scalar = fc.oneof(
      trickyString,
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(-0, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER, true, false, null, undefined),
    );
    const flat = fc.dictionary(trickyString, scalar) as fc.Arbitrary<{ [key: string]: AuditValue }>;
    fc.assert(
      fc.property(flat, (d) => {
        const e = { ...sampleAuditEvent(1), detail: d };
        expect(canonicalRecordText(GENESIS_HASH, 1, e)).toBe(serializeCanonical({ ...e, seq: 1, prevHash: GENESIS_HASH }));
      }),
      { numRuns: 2000 },
    );
    const e = sampleAuditEvent(1);
    expect(() => canonicalRecordText(GENESIS_HASH, 1, { ...e, detail: { a: 'x\ud800' } })).toThrow();
    expect(() => canonicalRecordText(GENESIS_HASH, 1, { ...e, detail: { a: Number.NaN } })).toThrow();
    expect(() => canonicalRecordText(GENESIS_HASH, 1, { ...e, detail: { 'k\udc00': 1 } })).toThrow();
  });

  it('ignores properties that are not event fields, including the record hash', () => {
    const record = buildRecord(undefined, sampleAuditEvent(1));
    const extra = { ...sampleAuditEvent(1), canonicalArgs: 'x' } as AuditEvent;
    expect(canonicalRecordText(GENESIS_HASH, 1, record)).toBe(canonicalRecordText(GENESIS_HASH, 1, sampleAuditEvent(1)));
    expect(canonicalRecordText(GENESIS_HASH, 1, extra)).toBe(canonicalRecordText(GENESIS_HASH, 1, sampleAuditEvent(1)));
    expect(canonicalRecordText(GENESIS_HASH, 1, record)).not.toContain('"hash"');
  });

  it('refuses what serializeCanonical refuses', () => {
    const e = sampleAuditEvent(1);
    expect(() => canonicalRecordText(GENESIS_HASH, 1, { ...e, actor: 'a\ud800' })).toThrow(TypeError);
    expect(() => canonicalRecordText('\udfff', 1, e)).toThrow(TypeError);
    expect(() => canonicalRecordText(GENESIS_HASH, 1, { ...e, at: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalRecordText(GENESIS_HASH, Number.POSITIVE_INFINITY, e)).toThrow(TypeError);
    expect(() => canonicalRecordText(GENESIS_HASH, 1, { ...e, runId: 5 as unknown as string })).toThrow(TypeError);
    expect(() => canonicalRecordText(GENESIS_HASH, 1, { ...e, detail: { x: Number.NaN } })).toThrow();
    expect(() => canonicalRecordText(GENESIS_HASH, 1, { ...e, detail: { x: 'a\ud800' } })).toThrow();
  });
});

describe('hashRecord', () => {
  it('is sha256Hex of the canonical text', () => {
    fc.assert(
      fc.property(event, fc.integer({ min: 1 }), (e, seq) => {
        expect(hashRecord(GENESIS_HASH, seq, e)).toBe(sha256Hex(serializeCanonical({ ...e, seq, prevHash: GENESIS_HASH })));
      }),
      { numRuns: 300 },
    );
  });

  it('matches a pinned vector (stored logs depend on this exact encoding)', () => {
    const e: AuditEvent = {
      type: 'proposal',
      at: 1767225600000,
      runId: 'run-1',
      toolName: 'transfer',
      argsDigest: sha256Hex('{"amount":10,"to":"alice"}'),
      actor: 'user:42',
      detail: { ruleId: 'finance', n: 1.5, ok: true, list: [null, 'é'] },
    };
    expect(canonicalRecordText(GENESIS_HASH, 1, e)).toBe(
      `{"actor":"user:42","argsDigest":"${sha256Hex('{"amount":10,"to":"alice"}')}","at":1767225600000,` +
        `"detail":{"list":[null,"é"],"n":1.5,"ok":true,"ruleId":"finance"},"prevHash":"${GENESIS_HASH}",` +
        `"runId":"run-1","seq":1,"toolName":"transfer","type":"proposal"}`,
    );
    expect(hashRecord(GENESIS_HASH, 1, e)).toBe('90ac6a7be95b3404442f7148e94cc67b7748d7d2971dae6df99845a281c72bc7');
  });

  it('changes when any field, seq or prevHash changes', () => {
    const base = sampleAuditEvent(1);
    const h = hashRecord(GENESIS_HASH, 1, base);
    const variants: AuditEvent[] = [
      { ...base, type: 'result' },
      { ...base, at: base.at + 1 },
      { ...base, detail: { ...base.detail, n: 2 } },
      { ...base, detail: undefined },
    ];
    for (const field of OPTIONAL_STRING_FIELDS) {
      variants.push({ ...base, [field]: `${base[field]}x` }, { ...base, [field]: undefined });
    }
    const hashes = new Set(variants.map((v) => hashRecord(GENESIS_HASH, 1, v)));
    hashes.add(hashRecord(GENESIS_HASH, 2, base));
    hashes.add(hashRecord('1'.repeat(64), 1, base));
    expect(hashes.size).toBe(variants.length + 2);
    expect(hashes.has(h)).toBe(false);
  });
});

describe('buildRecord', () => {
  it('starts at seq 1 on the genesis hash and links each record to the previous one', () => {
    expect(GENESIS_HASH).toBe('0'.repeat(64));
    const first = buildRecord(undefined, sampleAuditEvent(1));
    expect(first).toEqual({ seq: 1, prevHash: GENESIS_HASH, hash: hashRecord(GENESIS_HASH, 1, first), ...sampleAuditEvent(1) });
    const second = buildRecord(first, sampleAuditEvent(2));
    expect(second.seq).toBe(2);
    expect(second.prevHash).toBe(first.hash);
    expect(second.hash).toBe(hashRecord(first.hash, 2, sampleAuditEvent(2)));
    expect(buildRecord({ seq: 41, hash: 'a'.repeat(64) }, sampleAuditEvent(3))).toMatchObject({
      seq: 42,
      prevHash: 'a'.repeat(64),
    });
  });

  it('copies only event fields and deep-copies detail', () => {
    const source = { ...sampleAuditEvent(1), runId: undefined, secret: 'hunter2', hash: 'f'.repeat(64) } as AuditEvent;
    const record = buildRecord(undefined, source);
    expect(record).not.toHaveProperty('secret');
    expect(record).not.toHaveProperty('runId');
    expect(record.hash).not.toBe('f'.repeat(64));
    expect(record.detail).toEqual(source.detail);
    expect(record.detail).not.toBe(source.detail);
    expect(record.detail?.nested).not.toBe(source.detail?.nested);
  });

  it('keeps a "__proto__" detail key as data', () => {
    const detail = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as { [key: string]: AuditValue };
    const record = buildRecord(undefined, { type: 'result', at: 0, detail });
    expect(Object.keys(record.detail ?? {})).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(record.detail)).toBe(Object.prototype);
    expect(record.hash).toBe(sha256Hex(serializeCanonical({ type: 'result', at: 0, detail, seq: 1, prevHash: GENESIS_HASH })));
    expect(JSON.stringify(record)).toContain('"__proto__":{"polluted":true}');
  });

  it('rejects malformed events with invalid_event', () => {
    const e = sampleAuditEvent(1);
    let deep: AuditValue = 1;
    for (let i = 0; i < 40; i++) deep = [deep];
    const bad: unknown[] = [
      null,
      'proposal',
      { ...e, type: 'launch' },
      { ...e, type: undefined },
      { ...e, at: '2026-01-01' },
      { ...e, at: Number.POSITIVE_INFINITY },
      { ...e, runId: 5 },
      { ...e, actor: null },
      { ...e, reason: 'a\ud800' },
      { ...e, argsDigest: 'ABC' },
      { ...e, argsDigest: 'A'.repeat(64) },
      { ...e, detail: [] },
      { ...e, detail: null },
      { ...e, detail: { when: new Date() } },
      { ...e, detail: { f: () => 1 } },
      { ...e, detail: { n: 10n } },
      { ...e, detail: { list: [undefined] } },
      { ...e, detail: { deep } },
    ];
    for (const value of bad) {
      expect(() => buildRecord(undefined, value as AuditEvent), JSON.stringify(String(value))).toThrow(
        expect.objectContaining({ name: 'AuditLogError', code: 'invalid_event' }),
      );
    }
    expect(() => buildRecord({ seq: 0, hash: GENESIS_HASH }, e)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => buildRecord({ seq: 1, hash: 'nothex' }, e)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  // The call fields are checked once per call and remembered: the memory must never let a bad one through.
  it('checks call fields afresh whenever they differ from the last call, however they differ', () => {
    const e = { ...sampleAuditEvent(1), argsDigest: 'a'.repeat(64) };
    const good = buildRecord(undefined, e);
    const bad: Partial<AuditEvent>[] = [
      { runId: 'r\ud800' },
      { sessionId: 's\udfff' },
      { callId: 5 as unknown as string },
      { proposalId: { toString: () => 'p' } as unknown as string },
      { toolName: 't\ud83d' },
      { argsDigest: 'A'.repeat(64) },
      { argsDigest: 'a'.repeat(63) },
    ];
    for (const change of bad) {
      expect(() => buildRecord(undefined, { ...e, ...change }), JSON.stringify(change)).toThrow(
        expect.objectContaining({ name: 'AuditLogError', code: 'invalid_event' }),
      );
      // The good fields are still accepted, with the same bytes, right after a refused event.
      expect(buildRecord(undefined, e)).toEqual(good);
    }
  });

  it('hashes records of one call, built back to back, exactly as hashRecord does', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(event, fc.boolean()), { minLength: 1, maxLength: 6 }), (events) => {
        let prev: { seq: number; hash: string } | undefined;
        let shared = events[0]![0];
        for (const [e, sameCall] of events) {
          // Half the time reuse the previous event's call fields, as the records of one call do.
          const next = sameCall ? { ...e, runId: shared.runId, sessionId: shared.sessionId, callId: shared.callId, proposalId: shared.proposalId, toolName: shared.toolName, argsDigest: shared.argsDigest } : e;
          let record: ReturnType<typeof buildRecord>;
          try {
            record = buildRecord(prev, next);
          } catch {
            continue; // tricky strings may make an event invalid; validity is tested above
          }
          expect(record.hash).toBe(hashRecord(prev?.hash ?? GENESIS_HASH, record.seq, next));
          prev = record;
          shared = next;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('treats undefined detail properties as absent', () => {
    const record = buildRecord(undefined, { type: 'result', at: 0, detail: { a: 1, b: undefined } as never });
    expect(record.detail).toEqual({ a: 1 });
    expect(Object.keys(record.detail ?? {})).toEqual(['a']);
  });

  // buildRecord validates, copies and encodes in one pass: it must accept exactly the events
  // auditEventProblem accepts, and store exactly the fields it hashes.
  it('accepts exactly the events auditEventProblem accepts, and stores what it hashed', () => {
    const anyValue = fc.oneof(trickyString, fc.integer(), fc.double(), fc.constant(undefined), fc.constant(null), fc.boolean());
    const loose = fc.record(
      {
        type: fc.oneof(fc.constantFrom(...AUDIT_EVENT_TYPES), trickyString),
        at: fc.oneof(fc.double(), fc.string()),
        runId: anyValue,
        callId: anyValue,
        requestId: anyValue,
        argsDigest: fc.oneof(fc.constant('a'.repeat(64)), fc.constant('A'.repeat(64)), anyValue),
        actor: anyValue,
        reason: anyValue,
        detail: fc.oneof(detail, fc.dictionary(trickyString, anyValue), fc.constant(null), fc.constant([])),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(loose, (value) => {
        const problem = auditEventProblem(value);
        let record: ReturnType<typeof buildRecord> | undefined;
        try {
          record = buildRecord(undefined, value as AuditEvent);
        } catch (error) {
          expect(error).toMatchObject({ code: 'invalid_event' });
        }
        expect(record === undefined, `${problem}`).toBe(problem !== undefined);
        if (record !== undefined) {
          expect(record.hash).toBe(hashRecord(GENESIS_HASH, 1, record));
          expect(record.hash).toBe(hashRecord(GENESIS_HASH, 1, value as AuditEvent));
        }
      }),
      { numRuns: 3000 },
    );
  });
});
