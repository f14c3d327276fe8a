import type { AuditHead } from '@countersign/core/audit';
import { CliError } from './cli-error.ts';

const ANCHOR = /^(\d{1,15}):([0-9a-f]{64})$/;

/** Parses `--anchor seq:hash` (as printed by `audit verify` and `audit export`). */
export function parseAnchor(text: string): AuditHead {
  const match = ANCHOR.exec(text.trim());
  const seq = match === null ? Number.NaN : Number(match[1]);
  if (match === null || !Number.isSafeInteger(seq) || seq < 1) {
    throw new CliError('usage', '--anchor must be SEQ:HASH, e.g. 42:<64 hex digits> (the head printed by a previous verify or export)');
  }
  return { seq, hash: match[2] as string };
}

export function formatAnchor(head: AuditHead): string {
  return `${head.seq}:${head.hash}`;
}
