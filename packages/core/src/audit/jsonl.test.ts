import { describe, expect, it } from 'vitest';
import { buildRecord } from './chain.ts';
import { exportJsonl, parseJsonl } from './jsonl.ts';
import { chainOf, sampleAuditEvent } from './test-fixtures.ts';
import type { AuditRecord } from './types.ts';
import { verifyChain } from './verify-chain.ts';

describe('exportJsonl / parseJsonl', () => {
  it('round-trips records, one newline-terminated line each', () => {
    const records = chainOf(3);
    const text = exportJsonl(records);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(4);
    expect(parseJsonl(text)).toEqual({ ok: true, records });
    expect(parseJsonl('')).toEqual({ ok: true, records: [] });
    expect(exportJsonl([])).toBe('');
  });

  it('keeps newlines and separators inside strings on one line', () => {
    const records = [buildRecord(undefined, sampleAuditEvent(1, { reason: 'a\nb\r\nc\u2028d', detail: { 'k\n': '\n' } }))];
    const text = exportJsonl(records);
    expect(text.split('\n')).toHaveLength(2);
    const parsed = parseJsonl(text);
    expect(parsed).toEqual({ ok: true, records });
    expect(parsed.ok && verifyChain(parsed.records).ok).toBe(true);
  });

  it('reports the line of invalid JSON and of blank lines', () => {
    const lines = exportJsonl(chainOf(3)).split('\n');
    expect(parseJsonl([lines[0], '{"seq":2', lines[2], ''].join('\n'))).toMatchObject({
      ok: false,
      reason: 'invalid_json',
      line: 2,
    });
    expect(parseJsonl([lines[0], '', lines[1], ''].join('\n'))).toMatchObject({ ok: false, reason: 'invalid_json', line: 2 });
  });

  it('reports the line of a record with a bad shape', () => {
    const records = chainOf(3);
    const bad = { ...records[2], injected: '<script>' };
    expect(parseJsonl(exportJsonl([records[0]!, records[1]!, bad as AuditRecord]))).toMatchObject({
      ok: false,
      reason: 'malformed_record',
      line: 3,
    });
    expect(parseJsonl('[1,2]\n')).toMatchObject({ ok: false, reason: 'malformed_record', line: 1 });
    expect(parseJsonl('null\n')).toMatchObject({ ok: false, reason: 'malformed_record', line: 1 });
    const badHash = JSON.stringify({ ...records[0], hash: 'Z'.repeat(64) });
    expect(parseJsonl(`${badHash}\n`)).toMatchObject({ ok: false, reason: 'malformed_record', line: 1 });
  });

  it('reports a cut-off last line as partial_line', () => {
    const text = exportJsonl(chainOf(3));
    expect(parseJsonl(text.slice(0, -30))).toMatchObject({ ok: false, reason: 'partial_line', line: 3 });
  });

  it('accepts a complete last record without a final newline', () => {
    const records = chainOf(3);
    expect(parseJsonl(exportJsonl(records).slice(0, -1))).toEqual({ ok: true, records });
  });

  it('gives verifyChain positions that are line numbers minus one', () => {
    const records = chainOf(5);
    const edited = records.map((r, i) => (i === 3 ? { ...r, toolName: 'rm' } : r));
    const parsed = parseJsonl(exportJsonl(edited));
    if (!parsed.ok) throw new Error(parsed.message);
    expect(verifyChain(parsed.records)).toMatchObject({ ok: false, index: 3, reason: 'hash_mismatch' });
  });
});
