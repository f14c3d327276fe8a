import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildRecord } from './chain.ts';
import { AUDIT_EVENT_TYPES } from './record-shape.ts';
import type { AuditEvent, AuditRecord, AuditValue } from './types.ts';
import { verifyChain } from './verify-chain.ts';

type Json = AuditValue;
type JsonObject = { [key: string]: Json };

const STRING_FIELDS = ['runId', 'sessionId', 'callId', 'proposalId', 'requestId', 'toolName', 'actor', 'reason'] as const;
const ALL_FIELDS = [...STRING_FIELDS, 'type', 'at', 'argsDigest', 'detail', 'seq', 'prevHash', 'hash'] as const;

const hex64 = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
const jsonObject = fc.dictionary(fc.string(), fc.jsonValue() as fc.Arbitrary<Json>, { maxKeys: 4 });

const eventArb: fc.Arbitrary<AuditEvent> = fc.record(
  {
    type: fc.constantFrom(...AUDIT_EVENT_TYPES),
    at: fc.integer({ min: 0, max: 2 ** 45 }),
    runId: fc.string(),
    sessionId: fc.string(),
    callId: fc.string(),
    proposalId: fc.string(),
    requestId: fc.string(),
    toolName: fc.string(),
    argsDigest: hex64,
    actor: fc.string(),
    reason: fc.string(),
    detail: jsonObject,
  },
  { requiredKeys: ['type', 'at'] },
);

type Mutation =
  | { kind: 'edit'; index: number; field: string; op: 'set' | 'delete' | 'illTyped'; path: number[]; seed: Json }
  | { kind: 'addField'; index: number; name: string }
  | { kind: 'delete'; index: number }
  | { kind: 'swap'; i: number; j: number }
  | { kind: 'duplicate'; index: number };

function mutationArb(n: number): fc.Arbitrary<Mutation> {
  const index = fc.nat({ max: n - 1 });
  const options: fc.Arbitrary<Mutation>[] = [
    fc.record({
      kind: fc.constant('edit' as const),
      index,
      field: fc.constantFrom(...ALL_FIELDS),
      op: fc.constantFrom('set' as const, 'set' as const, 'delete' as const, 'illTyped' as const),
      path: fc.array(fc.nat(), { maxLength: 4 }),
      seed: fc.jsonValue() as fc.Arbitrary<Json>,
    }),
    fc.record({ kind: fc.constant('addField' as const), index, name: fc.constantFrom('note', 'extra', 'id', '') }),
    fc.record({ kind: fc.constant('delete' as const), index }),
    fc.record({ kind: fc.constant('duplicate' as const), index }),
  ];
  if (n >= 2) {
    options.push(
      fc
        .tuple(index, index)
        .filter(([i, j]) => i !== j)
        .map(([i, j]) => ({ kind: 'swap' as const, i, j })),
    );
  }
  return fc.oneof(...options);
}

const text = (value: unknown): string => JSON.stringify(value) ?? 'undefined';

function setOwn(target: object, key: string | number, value: unknown): void {
  // Defined, not assigned: a "__proto__" key must stay data.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A detail that differs from `detail`: a (possibly nested) value replaced, or a key added. */
function editDetail(detail: JsonObject | undefined, path: number[], seed: Json): JsonObject {
  const copy: JsonObject = detail === undefined ? {} : JSON.parse(JSON.stringify(detail));
  let container: JsonObject | Json[] = copy;
  for (let depth = 0; ; depth++) {
    const keys = Array.isArray(container) ? container.map((_, i) => i) : Object.keys(container);
    if (keys.length === 0) {
      setOwn(container, Array.isArray(container) ? 0 : 'added', seed);
      return copy;
    }
    const key = keys[(path[depth] ?? 0) % keys.length] as string | number;
    const old = (container as Record<string | number, Json>)[key] as Json;
    if (depth + 1 < path.length && typeof old === 'object' && old !== null) {
      container = old;
      continue;
    }
    // `[old]` always differs from `old`, so the edit is never a no-op.
    setOwn(container, key, text(seed) === text(old) ? [old] : seed);
    return copy;
  }
}

function changed(field: string, old: unknown, op: 'set' | 'delete' | 'illTyped', path: number[], seed: Json): unknown {
  if (op === 'delete' && old !== undefined) return undefined;
  if (op === 'illTyped') return typeof old === 'string' || field === 'detail' ? 42 : 'not-a-number';
  switch (field) {
    case 'type':
      return AUDIT_EVENT_TYPES[(AUDIT_EVENT_TYPES.indexOf(old as never) + 1 + (path[0] ?? 0) % 8) % 9];
    case 'at':
    case 'seq':
      return (old as number) + 1 + (path[0] ?? 0);
    case 'detail':
      return editDetail(old as JsonObject | undefined, path, seed);
    case 'argsDigest':
    case 'prevHash':
    case 'hash': {
      const value = typeof old === 'string' ? old : '0'.repeat(64);
      const at = (path[0] ?? 0) % 64;
      const flipped = value[at] === 'a' ? 'b' : 'a';
      return `${value.slice(0, at)}${flipped}${value.slice(at + 1)}`;
    }
    default: {
      const candidate = typeof seed === 'string' ? seed : text(seed);
      return candidate === old ? `${candidate}x` : candidate;
    }
  }
}

function mutate(records: unknown[], m: Mutation): unknown[] {
  const out = [...records];
  switch (m.kind) {
    case 'edit': {
      const record = JSON.parse(JSON.stringify(out[m.index])) as Record<string, unknown>;
      const value = changed(m.field, record[m.field], m.op, m.path, m.seed);
      if (value === undefined) delete record[m.field];
      else setOwn(record, m.field, value);
      out[m.index] = record;
      return out;
    }
    case 'addField':
      out[m.index] = { ...(out[m.index] as object), [m.name]: 'x' };
      return out;
    case 'delete':
      out.splice(m.index, 1);
      return out;
    case 'swap':
      [out[m.i], out[m.j]] = [out[m.j], out[m.i]];
      return out;
    case 'duplicate':
      out.splice(m.index + 1, 0, JSON.parse(JSON.stringify(out[m.index])));
      return out;
  }
}

/** The first position where the tampered sequence differs from the original. */
function firstDifference(original: unknown[], tampered: unknown[]): number {
  for (let i = 0; i < tampered.length; i++) {
    if (i >= original.length || text(original[i]) !== text(tampered[i])) return i;
  }
  return tampered.length;
}

const chainArb = fc
  .array(eventArb, { minLength: 1, maxLength: 30 })
  .map((events) => {
    const records: AuditRecord[] = [];
    for (const event of events) records.push(buildRecord(records.at(-1), event));
    // As read back from a JSON-lines file.
    return JSON.parse(JSON.stringify(records)) as AuditRecord[];
  })
  .chain((records) => mutationArb(records.length).map((mutation) => ({ records, mutation })));

describe('verifyChain (property)', () => {
  it('detects any single edit, deletion, swap or duplication, at the first tampered position', () => {
    fc.assert(
      fc.property(chainArb, ({ records, mutation }) => {
        const last = records.at(-1)!;
        const anchor = { seq: last.seq, hash: last.hash };
        expect(verifyChain(records, { anchor }).ok).toBe(true);

        const tampered = mutate(records, mutation);
        const result = verifyChain(tampered, { anchor });
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.index).toBe(firstDifference(records, tampered));

        // Without an anchor, only dropping the last record goes unnoticed.
        const dropsLast = mutation.kind === 'delete' && mutation.index === records.length - 1;
        expect(verifyChain(tampered).ok).toBe(dropsLast);
      }),
      { numRuns: 1500 },
    );
  });
});
