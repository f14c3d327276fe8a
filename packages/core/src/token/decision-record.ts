import { RECIPE_ID } from '../canonical/recipe.ts';
import { DECISION_RECORD_PURPOSE } from './derive-run-key.ts';
import { type ClaimsRead, checkCallClaims, checkShape, malformed } from './claims.ts';
import type { CallClaims } from './format.ts';
import { encodeSegment } from './jws.ts';
import type { Keyring } from './keyring.ts';
import { signWith } from './sign.ts';
import { type SignedCheck, type SignedKind, verifySigned } from './verify-signed.ts';

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

export type DecisionRecordCheck = SignedCheck<DecisionClaims>;


export function signDecisionRecord(input: Omit<DecisionClaims, 'v' | 'canon'>, keyring: Keyring): string {
  const key = keyring.active();
  const claims: DecisionClaims = { v: DECISION_RECORD_VERSION, canon: RECIPE_ID, ...input };
  const signingInput = `${encodeSegment({ alg: key.alg, typ: DECISION_RECORD_TYPE, kid: key.kid })}.${encodeSegment(claims)}`;
  return `${signingInput}.${signWith(keyring, key, claims.run, signingInput, DECISION_RECORD_PURPOSE).toString('base64url')}`;
}

const CLAIM_KEYS = new Set(['v', 'canon', 'run', 'sid', 'call', 'tool', 'def', 'args', 'sub', 'req', 'prop', 'apr', 'dec', 'rsn', 'edit', 'at']);
const STRING_CLAIMS = ['canon', 'run', 'sid', 'call', 'tool', 'sub', 'req', 'prop', 'apr'];

function readDecisionClaims(c: Record<string, unknown>): ClaimsRead<DecisionClaims> {
  const problem = checkShape(c, CLAIM_KEYS, DECISION_RECORD_VERSION, 'decision record') ?? checkCallClaims(c, STRING_CLAIMS);
  if (problem !== undefined) return problem;
  if (c.dec !== 'approve' && c.dec !== 'deny') return malformed('claim "dec" must be "approve" or "deny"');
  if (c.rsn !== null && typeof c.rsn !== 'string') return malformed('claim "rsn" must be a string or null');
  if (c.edit !== null && (typeof c.edit !== 'string' || c.edit === '')) return malformed('claim "edit" must be a proposal id or null');
  if (!Number.isSafeInteger(c.at)) return malformed('claim "at" must be an integer');
  return { ok: true, claims: c as unknown as DecisionClaims };
}

const DECISION_RECORD_KIND: SignedKind<DecisionClaims> = {
  typ: DECISION_RECORD_TYPE,
  purpose: DECISION_RECORD_PURPOSE,
  noun: 'decision record',
  readClaims: readDecisionClaims,
};

/**
 * Checks a decision record's form and signature (algorithm from the key, by `kid`).
 * The record itself names its run, so its claims are read before the per-run key is
 * derived. Never throws.
 */
export function verifyDecisionRecord(record: unknown, keyring: Keyring): DecisionRecordCheck {
  return verifySigned(DECISION_RECORD_KIND, record, keyring, { fromClaims: (claims) => claims.run });
}
