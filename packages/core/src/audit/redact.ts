import { AuditLogError } from './errors.ts';
import { MAX_AUDIT_DETAIL_DEPTH } from './record-shape.ts';
import type { AuditValue } from './types.ts';

/** What replaces a value that must not be logged in clear. */
export const AUDIT_REDACTED = '[redacted]';

/**
 * Keys whose values look like credentials. A safety net for tools NOT marked
 * sensitive; the real control is classifying a tool as sensitive, which keeps all
 * of its arguments out of the log.
 */
export const AUDIT_SECRET_KEY_PATTERN =
  /pass(?:word|phrase|wd)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key|signature/i;

export interface AuditDetailOptions {
  /** The tool's arguments are sensitive: none of them is logged, only the event's `argsDigest`. */
  sensitive: boolean;
  /** Keys whose values are replaced by AUDIT_REDACTED in non-sensitive arguments (default AUDIT_SECRET_KEY_PATTERN). */
  secretKeys?: RegExp | undefined;
}

/**
 * The `detail` describing a call's arguments (invariant 10: secrets and raw arguments
 * of sensitive tools are never logged in clear). Put the SHA-256 of the canonical
 * arguments in the event's top-level `argsDigest`; it binds the arguments either way.
 * - sensitive tool: `{ argsRedacted: true }`, nothing derived from the arguments;
 * - any other tool: `{ args }`, a copy with values under secret-looking keys redacted.
 *
 * `args` is the parsed JSON of the canonical arguments; anything that is not a JSON
 * value is an AuditLogError `invalid_event`.
 */
export function auditDetailFor(args: unknown, opts: AuditDetailOptions): { [key: string]: AuditValue } {
  if (opts.sensitive) return { argsRedacted: true };
  const given = opts.secretKeys ?? AUDIT_SECRET_KEY_PATTERN;
  // A global or sticky RegExp keeps state between test() calls and would skip keys.
  const secretKeys = /[gy]/.test(given.flags) ? new RegExp(given.source, given.flags.replace(/[gy]/g, '')) : given;
  // The copy sits two levels below the record (detail → args), within the detail depth limit.
  return { args: redactValue(args, secretKeys, 2) };
}

function redactValue(value: unknown, secretKeys: RegExp, depth: number): AuditValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value;
      break;
    case 'object': {
      if (value === null) return null;
      if (depth >= MAX_AUDIT_DETAIL_DEPTH) return AUDIT_REDACTED;
      if (Array.isArray(value)) return value.map((item) => redactValue(item, secretKeys, depth + 1));
      const out: { [key: string]: AuditValue } = {};
      for (const [key, item] of Object.entries(value)) {
        if (item === undefined) continue;
        const copy = secretKeys.test(key) ? AUDIT_REDACTED : redactValue(item, secretKeys, depth + 1);
        Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
  }
  throw new AuditLogError('invalid_event', `arguments hold a ${typeof value} that is not a JSON value`);
}
