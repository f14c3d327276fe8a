import { auditRecordProblem } from './record-shape.ts';
import type { AuditRecord } from './types.ts';

/** One record as a JSON-lines line, newline included. JSON.stringify escapes every newline inside strings. */
export function recordLine(record: AuditRecord): string {
  return `${JSON.stringify(record)}\n`;
}

/** Records as JSON-lines text: one record per line, every line newline-terminated. */
export function exportJsonl(records: Iterable<AuditRecord>): string {
  let text = '';
  for (const record of records) text += recordLine(record);
  return text;
}

export type ParseJsonlFailureReason =
  /** A line is blank or not JSON. */
  | 'invalid_json'
  /** A line is JSON but not a well-formed AuditRecord. */
  | 'malformed_record'
  /** The last line has no newline and is not valid JSON: most likely a write cut short. */
  | 'partial_line';

export type ParseJsonlResult =
  | { ok: true; records: AuditRecord[] }
  | { ok: false; reason: ParseJsonlFailureReason; /** 1-based */ line: number; message: string };

/**
 * Parses JSON-lines text into records, checking each record's shape (not the chain:
 * pass the records to `verifyChain`, whose `index` is then `line - 1`). Blank lines
 * are errors, so line numbers and record positions never drift apart. A final line
 * without a newline is accepted when it is a complete record (files edited by hand
 * often lack one) and reported as `partial_line` when it is not.
 */
export function parseJsonl(text: string): ParseJsonlResult {
  const lines = text.split('\n');
  // Text ending in a newline leaves an empty last element: not a line.
  const terminated = lines.at(-1) === '';
  if (terminated) lines.pop();
  const records: AuditRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const source = lines[i] as string;
    let value: unknown;
    try {
      if (source.trim() === '') throw new SyntaxError('blank line');
      value = JSON.parse(source);
    } catch (error) {
      if (!terminated && i === lines.length - 1) {
        return {
          ok: false,
          reason: 'partial_line',
          line,
          message: `line ${line} is incomplete (no final newline, not valid JSON): the last write was probably cut short`,
        };
      }
      return { ok: false, reason: 'invalid_json', line, message: `line ${line} is not valid JSON: ${errorText(error)}` };
    }
    const problem = auditRecordProblem(value);
    if (problem !== undefined) {
      return { ok: false, reason: 'malformed_record', line, message: `line ${line}: ${problem}` };
    }
    records.push(value as AuditRecord);
  }
  return { ok: true, records };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
