import type { AuditRecord } from '../audit/types.ts';
import { readPasskeyEvidence } from './assertion-shape.ts';
import { passkeyChangeChallenge, passkeyEnrolClaims, passkeyRemoveClaims } from './change-claims.ts';
import { type ChainedRegistration, readRegistration, readRemoval } from './change-events.ts';
import { passkeyChallenge, passkeyDecisionClaims } from './decision-claims.ts';
import type { PasskeyCredential, PasskeyEvidence } from './types.ts';

/** Verifies one stored assertion against a public key, offline (no counter, no clock). */
export type OfflineAssertionCheck = (input: {
  evidence: PasskeyEvidence;
  challenge: Uint8Array;
  credential: PasskeyCredential;
}) => Promise<{ ok: true } | { ok: false; message: string }>;

const MISSING = 'passkey_missing: a decision under a passkey rule without a passkey assertion';

export interface PasskeyEvidenceProblem {
  /** The record at fault; absent for a problem of the passkey table (then `credentialId` names the row). */
  seq?: number | undefined;
  credentialId?: string | undefined;
  reason: string;
}

export interface PasskeyEvidenceReport {
  /** Decisions whose assertion verified under a key registered in the chain. */
  verified: number;
  /** `passkey_registered` records, and how many of them were an approver's first (sign-in alone: the bootstrap limit). */
  registered: number;
  firstRegistrations: number;
  /** `passkey_removed` records, and how many an operator made (lost-device recovery). */
  removed: number;
  operatorRemovals: number;
  /**
   * "First" registrations of approvers who had passkeys before (all removed since, e.g. by an
   * operator): legitimate after a lost device, but also what someone able to append to the
   * chain would write. Not failures; `audit verify` lists them for a person to confirm.
   */
  reRegistrations: { seq: number; approver: string; credentialId: string }[];
  problems: PasskeyEvidenceProblem[];
}

/** A key as the chain has it at one point of the walk. */
interface ChainKey {
  registration: ChainedRegistration;
  seq: number;
  removedSeq?: number | undefined;
}

/**
 * Re-verifies every passkey assertion in an audit trail against public keys taken from
 * the trail itself (`passkey_registered` records), never from the passkey table: an
 * assertion counts only if its credential was registered in the chain, by the approver
 * who decided, before the decision, and not removed before it. The challenge is rebuilt
 * from the records (never taken from the stored assertion). Every decision on a request
 * opened under a passkey rule without a valid assertion is reported.
 *
 * Registrations and removals are held to the step-up rule too: a registration while the
 * approver had an active key, and an approver's removal, must carry an assertion of one
 * of the approver's keys (active in the chain at that point) over exactly that change.
 * An approver's first registration and an operator's removal carry none: they are
 * counted (the bootstrap limit), not refused.
 *
 * `table` (the store's passkey rows): every row must be a key registered in the chain,
 * with the same approver and public key, removed if the chain removed it; a row the chain
 * does not know is a planted key and is reported by credential id.
 *
 * The chain is as good as its head: someone who can rewrite the store can rewrite the
 * chain too, which `--anchor` (a head kept elsewhere) and signed checkpoints detect.
 */
export async function checkPasskeyEvidence(
  records: Iterable<AuditRecord> | AsyncIterable<AuditRecord>,
  verify: OfflineAssertionCheck,
  options: { table?: readonly PasskeyCredential[] | undefined } = {},
): Promise<PasskeyEvidenceReport> {
  const requests = new Map<string, { expiresAt: number; passkey: boolean }>();
  const keys = new Map<string, ChainKey>();
  // Registration ceremonies already used, by approver: one ceremony (and its step-up) registers one passkey.
  const ceremonies = new Set<string>();
  const report: PasskeyEvidenceReport = { verified: 0, registered: 0, firstRegistrations: 0, removed: 0, operatorRemovals: 0, reRegistrations: [], problems: [] };
  const problem = (seq: number, reason: string) => report.problems.push({ seq, reason });
  for await (const record of records) {
    switch (record.type) {
      case 'approval_requested': {
        if (record.requestId === undefined) break;
        const detail = record.detail ?? {};
        requests.set(record.requestId, { expiresAt: typeof detail.expiresAt === 'number' ? detail.expiresAt : Number.NaN, passkey: detail.passkey === 'required' });
        break;
      }
      case 'passkey_registered': {
        report.registered += 1;
        const found = await checkRegistration(record, keys, ceremonies, verify);
        if (typeof found === 'string') problem(record.seq, found);
        else {
          if (found.authorizedBy === 'first') {
            report.firstRegistrations += 1;
            const hadKeys = [...keys.values()].some((k) => k.registration.approver === found.approver);
            if (hadKeys) report.reRegistrations.push({ seq: record.seq, approver: found.approver, credentialId: found.credentialId });
          }
          keys.set(found.credentialId, { registration: found, seq: record.seq });
        }
        break;
      }
      case 'passkey_removed': {
        report.removed += 1;
        const found = await checkRemoval(record, keys, verify);
        if (found !== undefined) problem(record.seq, found);
        else if (readRemoval(record)?.removedBy === 'operator') report.operatorRemovals += 1;
        break;
      }
      case 'decision': {
        if (record.requestId === undefined) break;
        const found = await checkDecision(record, requests.get(record.requestId), keys, verify);
        if (found === 'verified') report.verified += 1;
        else if (found !== undefined) problem(record.seq, found);
        break;
      }
      default:
        break;
    }
  }
  for (const row of options.table ?? []) {
    const found = tableProblem(row, keys.get(row.credentialId));
    if (found !== undefined) report.problems.push({ credentialId: row.credentialId, reason: found });
  }
  return report;
}

/** Keys of `approver` active in the chain right now (not removed). */
function activeKeys(keys: ReadonlyMap<string, ChainKey>, approver: string): ChainKey[] {
  return [...keys.values()].filter((k) => k.registration.approver === approver && k.removedSeq === undefined);
}

async function checkRegistration(
  record: AuditRecord,
  keys: Map<string, ChainKey>,
  ceremonies: Set<string>,
  verify: OfflineAssertionCheck,
): Promise<ChainedRegistration | string> {
  const registration = readRegistration(record);
  if (registration === undefined) return 'passkey_registration_malformed: not a well-formed passkey_registered record';
  if (keys.has(registration.credentialId)) return `passkey_registration_duplicate: ${registration.credentialId} was registered before`;
  const active = activeKeys(keys, registration.approver);
  if (registration.authorizedBy === 'first') {
    if (active.length > 0) return `passkey_registration_unauthorized: registered as ${registration.approver}'s first passkey while they had an active one`;
    return registration;
  }
  // A step-up signs the ceremony, not the new key: a second key on a stepped-up ceremony is the step-up replayed.
  const ceremony = `${registration.approver.length}:${registration.approver}\0${registration.challenge}`;
  if (ceremonies.has(ceremony)) return `passkey_registration_replayed: ${registration.approver}'s ceremony ${registration.challenge} added a passkey before`;
  ceremonies.add(ceremony);
  const stepUp = registration.stepUp as PasskeyEvidence;
  const why = await checkStepUp(stepUp, registration.approver, active, passkeyChangeChallenge(passkeyEnrolClaims(registration.approver, registration.challenge)), verify);
  return why === undefined ? registration : `passkey_registration_unauthorized: ${why}`;
}

async function checkRemoval(record: AuditRecord, keys: Map<string, ChainKey>, verify: OfflineAssertionCheck): Promise<string | undefined> {
  const removal = readRemoval(record);
  if (removal === undefined) return 'passkey_removal_malformed: not a well-formed passkey_removed record';
  const key = keys.get(removal.credentialId);
  if (key === undefined || key.registration.approver !== removal.approver || key.removedSeq !== undefined) {
    return `passkey_removal_unknown: ${removal.credentialId} is not an active passkey of ${removal.approver} in the chain`;
  }
  if (removal.removedBy === 'approver') {
    const challenge = passkeyChangeChallenge(passkeyRemoveClaims(removal.approver, removal.credentialId, removal.nonce as string));
    const why = await checkStepUp(removal.stepUp as PasskeyEvidence, removal.approver, activeKeys(keys, removal.approver), challenge, verify);
    if (why !== undefined) return `passkey_removal_unauthorized: ${why}`;
  }
  key.removedSeq = record.seq;
  return undefined;
}

/** Why a step-up assertion does not count, or undefined when it verifies under one of the approver's active chain keys. */
async function checkStepUp(stepUp: PasskeyEvidence, approver: string, active: readonly ChainKey[], challenge: Uint8Array, verify: OfflineAssertionCheck): Promise<string | undefined> {
  const key = active.find((k) => k.registration.credentialId === stepUp.credentialId);
  if (key === undefined) return `the step-up passkey ${stepUp.credentialId} is not an active passkey of ${approver} in the chain`;
  const checked = await verify({ evidence: stepUp, challenge, credential: credentialOf(key.registration) });
  return checked.ok ? undefined : `the step-up assertion does not verify: ${checked.message}`;
}

async function checkDecision(
  record: AuditRecord,
  request: { expiresAt: number; passkey: boolean } | undefined,
  keys: ReadonlyMap<string, ChainKey>,
  verify: OfflineAssertionCheck,
): Promise<'verified' | string | undefined> {
  const detail = record.detail ?? {};
  if (detail.passkey === undefined) {
    return request?.passkey === true ? MISSING : undefined;
  }
  const evidence = readPasskeyEvidence(detail.passkey);
  if (evidence === undefined) return 'passkey_malformed: the stored assertion is not one';
  if (request === undefined) return 'passkey_unbound: no approval_requested record precedes this decision';
  if (!Number.isSafeInteger(request.expiresAt)) return 'passkey_unbound: the approval_requested record has no deadline';
  if (detail.decision !== 'approve' && detail.decision !== 'deny') return 'passkey_unbound: the decision is neither approve nor deny';
  // Only what the chain registered BEFORE this record, and had not removed by then, counts.
  const key = keys.get(evidence.credentialId);
  if (key === undefined) return `passkey_unregistered: ${evidence.credentialId} has no passkey_registered record before this decision`;
  if (key.registration.approver !== record.actor) return `passkey_wrong_approver: the passkey belongs to ${key.registration.approver}, the decision to ${record.actor}`;
  if (key.removedSeq !== undefined) return `passkey_removed: ${evidence.credentialId} was removed at seq ${key.removedSeq}, before this decision`;
  const call = signedCall(detail.record);
  if (call === undefined) return 'passkey_unbound: the decision record does not name the call';
  const edit = typeof detail.editedArgsDigest === 'string' ? detail.editedArgsDigest : undefined;
  if (detail.editedProposalId !== undefined && edit === undefined) return 'passkey_unbound: an edit without its edited-argument digest';
  // Rebuilt from the chained records: the assertion counts only if it signed exactly this call and decision.
  const claims = passkeyDecisionClaims(
    {
      runId: String(record.runId),
      sessionId: String(record.sessionId),
      callId: String(record.callId),
      toolName: String(record.toolName),
      argsDigest: String(record.argsDigest),
      principal: call.sub,
      ...(call.def === null ? {} : { definitionDigest: call.def }),
    },
    { requestId: record.requestId as string, expiresAt: request.expiresAt },
    { decision: edit === undefined ? detail.decision : 'approve', editedArgsDigest: edit },
  );
  const checked = await verify({ evidence, challenge: passkeyChallenge(claims), credential: credentialOf(key.registration) });
  return checked.ok ? 'verified' : `passkey_invalid: ${checked.message}`;
}

/** What the passkey table says against what the chain says of the same credential. */
function tableProblem(row: PasskeyCredential, key: ChainKey | undefined): string | undefined {
  if (key === undefined) return `passkey_planted: ${row.credentialId} (${row.approver}) is in the passkey table but was never registered in the chain`;
  if (key.registration.approver !== row.approver) return `passkey_table_mismatch: ${row.credentialId} belongs to ${key.registration.approver} in the chain, to ${row.approver} in the table`;
  if (key.registration.publicKey !== row.publicKey) return `passkey_table_mismatch: the public key of ${row.credentialId} in the table is not the one registered in the chain`;
  if (key.removedSeq !== undefined && row.removedAt === undefined) return `passkey_table_mismatch: ${row.credentialId} was removed in the chain (seq ${key.removedSeq}) but is active in the table`;
  return undefined;
}

function credentialOf(registration: ChainedRegistration): PasskeyCredential {
  return { credentialId: registration.credentialId, approver: registration.approver, publicKey: registration.publicKey, counter: 0, label: '', createdAt: 0 };
}

/** The principal and definition digest from the signed decision record's payload (its signature is checked elsewhere). */
function signedCall(record: unknown): { sub: string; def: string | null } | undefined {
  if (typeof record !== 'string') return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(record.split('.')[1] ?? '', 'base64url').toString('utf8'));
    if (typeof payload !== 'object' || payload === null) return undefined;
    const { sub, def } = payload as Record<string, unknown>;
    if (typeof sub !== 'string' || (def !== null && typeof def !== 'string')) return undefined;
    return { sub, def };
  } catch {
    return undefined;
  }
}
