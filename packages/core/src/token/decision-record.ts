import { RECIPE_ID } from '../canonical/recipe.ts';
import { DECISION_RECORD_PURPOSE } from './derive-run-key.ts';
import type { CallClaims } from './format.ts';
import { decodeJws, encodeSegment } from './jws.ts';
import type { Keyring } from './keyring.ts';
import { signatureValid, signWith } from './sign.ts';

/**
 * A signed decision record: each approver's decision on one call is its own piece of
 * evidence (DESIGN: multi-party approval), kept in the audit trail. Same JWS form as
 * approval tokens but its own `typ` and its own HKDF purpose, so a decision record can
 * never be presented as an approval token, nor the reverse.
 */
export const DECISION_RECORD_TYPE = 'countersign-decision+jwt';
/** 2: same key derivation change as approval tokens (run id in the HKDF info). */
export const DECISION_RECORD_VERSION = 2;

/** `args` is the digest of the canonical arguments the approver was shown. */
export interface DecisionClaims extends CallClaims {
  v: typeof DECISION_RECORD_VERSION;
  canon: string;
  req: string;
  prop: string;
  /** The authenticated approver who decided. */
  apr: string;
  dec: 'approve' | 'deny';
  rsn: string | null;
  /** Approve-with-edits: the proposal holding the edited call. */
  edit: string | null;
  /** When the decision was recorded, milliseconds since the epoch. */
  at: number;
}

export type DecisionRecordCheck =
  | { ok: true; claims: DecisionClaims; kid: string }
  | {
      ok: false;
      reason: 'missing' | 'malformed' | 'unsupported_format' | 'unknown_key' | 'algorithm_mismatch' | 'bad_signature';
      message: string;
    };

const HEX64 = /^[0-9a-f]{64}$/;
const CLAIM_KEYS = ['v', 'canon', 'run', 'sid', 'call', 'tool', 'def', 'args', 'sub', 'req', 'prop', 'apr', 'dec', 'rsn', 'edit', 'at'];
const STRING_CLAIMS = ['canon', 'run', 'sid', 'call', 'tool', 'sub', 'req', 'prop', 'apr'];

export function signDecisionRecord(input: Omit<DecisionClaims, 'v' | 'canon'>, keyring: Keyring): string {
  const key = keyring.active();
  const claims: DecisionClaims = { v: DECISION_RECORD_VERSION, canon: RECIPE_ID, ...input };
  const signingInput = `${encodeSegment({ alg: key.alg, typ: DECISION_RECORD_TYPE, kid: key.kid })}.${encodeSegment(claims)}`;
  return `${signingInput}.${signWith(keyring, key, claims.run, signingInput, DECISION_RECORD_PURPOSE).toString('base64url')}`;
}

/** Checks a decision record's form and signature (algorithm from the key, by `kid`). Never throws. */
export function verifyDecisionRecord(record: unknown, keyring: Keyring): DecisionRecordCheck {
  const jws = decodeJws(record, DECISION_RECORD_TYPE);
  if (!jws.ok) return { ok: false, reason: jws.reason, message: `decision record ${jws.message}` };
  const { header, payload, signingInput, signature } = jws.parts;
  const problem = claimsProblem(payload);
  if (problem !== undefined) return problem;
  const claims = payload as unknown as DecisionClaims;
  const key = keyring.get(header.kid);
  if (key === undefined) return { ok: false, reason: 'unknown_key', message: `no trusted key with id "${header.kid}"` };
  if (header.alg !== key.alg) {
    return { ok: false, reason: 'algorithm_mismatch', message: `key "${key.kid}" is ${key.alg}; header says ${header.alg}` };
  }
  let valid = false;
  try {
    valid = signatureValid(keyring, key, claims.run, signingInput, signature, DECISION_RECORD_PURPOSE);
  } catch {
    valid = false;
  }
  return valid ? { ok: true, claims, kid: key.kid } : { ok: false, reason: 'bad_signature', message: 'signature does not verify' };
}

function claimsProblem(c: Record<string, unknown>): DecisionRecordCheck | undefined {
  const extra = Object.keys(c).find((k) => !CLAIM_KEYS.includes(k));
  if (extra !== undefined) return malformed(`unknown claim "${extra}"`);
  if (c.v !== DECISION_RECORD_VERSION) {
    return { ok: false, reason: 'unsupported_format', message: `unsupported decision record version ${String(c.v)}` };
  }
  for (const key of STRING_CLAIMS) {
    if (typeof c[key] !== 'string' || c[key] === '') return malformed(`claim "${key}" must be a non-empty string`);
  }
  if (typeof c.args !== 'string' || !HEX64.test(c.args)) return malformed('claim "args" must be a SHA-256 hex digest');
  if (c.def !== null && (typeof c.def !== 'string' || !HEX64.test(c.def))) {
    return malformed('claim "def" must be a SHA-256 hex digest or null');
  }
  if (c.dec !== 'approve' && c.dec !== 'deny') return malformed('claim "dec" must be "approve" or "deny"');
  if (c.rsn !== null && typeof c.rsn !== 'string') return malformed('claim "rsn" must be a string or null');
  if (c.edit !== null && (typeof c.edit !== 'string' || c.edit === '')) return malformed('claim "edit" must be a proposal id or null');
  if (!Number.isSafeInteger(c.at)) return malformed('claim "at" must be an integer');
  return undefined;
}

function malformed(message: string): DecisionRecordCheck {
  return { ok: false, reason: 'malformed', message };
}
