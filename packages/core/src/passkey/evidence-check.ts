import { openedRequestOf } from '../audit/step-facts.ts';
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
  /**
   * Of those, how many signed version 1 claims (made before claims named the approver):
   * they bind the call, decision and edit but not the approver, which the chain's one-key-
   * one-credential rule (a public key registered twice is a problem) stands in for.
   */
  unnamedApprover: number;
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
 * from the records (never taken from the stored assertion), claim by claim: the request
 * and call (also compared with the server-signed decision record), the approver, the
 * decision's kind and its edit (see `decisionKind`). Every decision on a request opened
 * under a passkey rule without a valid assertion is reported. A public key is registered
 * once: a second registration of it (any approver, any encoding via `publicKeyId`) is
 * reported, so one touch never counts for two approvers, even under version 1 claims.
 *
 * Registrations and removals are held to the step-up rule too: a registration while the
 * approver had an active key, and an approver's removal, must carry an assertion of one
 * of the approver's keys (active in the chain at that point) over exactly that change.
 * An approver's first registration and an operator's removal carry none: they are
 * counted (the bootstrap limit), not refused.
 *
 * `table` (the store's passkey rows): every row must be a key registered in the chain,
 * with the same approver and public key, removed if the chain removed it; a row the chain
 * does not know is a planted key and is reported by credential id, and so is a key of the
 * chain that has no row (deleted).
 *
 * The chain is as good as its head: someone who can rewrite the store can rewrite the
 * chain too, which `--anchor` (a head kept elsewhere) and signed checkpoints detect.
 */
export async function checkPasskeyEvidence(
  records: Iterable<AuditRecord> | AsyncIterable<AuditRecord>,
  verify: OfflineAssertionCheck,
  options: PasskeyEvidenceOptions = {},
): Promise<PasskeyEvidenceReport> {
  const requests = new Map<string, ChainRequest>();
  const edits = new Map<string, EditedProposal>();
  const keys = new Map<string, ChainKey>();
  // Public keys already registered (by their `publicKeyId`), to whom: one key, one credential.
  const publicKeys = new Map<string, string>();
  const publicKeyId = options.publicKeyId ?? ((publicKey: string) => publicKey);
  // Registration ceremonies already used, by approver: one ceremony (and its step-up) registers one passkey.
  const ceremonies = new Set<string>();
  const report: PasskeyEvidenceReport = { verified: 0, unnamedApprover: 0, registered: 0, firstRegistrations: 0, removed: 0, operatorRemovals: 0, reRegistrations: [], problems: [] };
  const problem = (seq: number, reason: string) => report.problems.push({ seq, reason });
  for await (const record of records) {
    switch (record.type) {
      // A request opens in its own record (format 1, or later than its call) or in the
      // proposal record of its call (format 2).
      case 'approval_requested':
      case 'proposal': {
        const opened = openedRequestOf(record);
        if (opened !== undefined) {
          // No writer opens a request twice: a second opening (of either format) could only relax what its decisions are held to.
          if (requests.has(opened.requestId)) problem(record.seq, `request_reopened: request ${opened.requestId} was opened before`);
          else requests.set(opened.requestId, { proposalId: opened.proposalId, expiresAt: typeof opened.detail.expiresAt === 'number' ? opened.detail.expiresAt : Number.NaN, passkey: opened.detail.passkey === 'required' });
        }
        const editedFrom = record.type === 'proposal' ? record.detail?.editedFrom : undefined;
        if (typeof editedFrom === 'string' && record.proposalId !== undefined && record.argsDigest !== undefined) {
          edits.set(record.proposalId, { editedFrom, argsDigest: record.argsDigest });
        }
        break;
      }
      case 'passkey_registered': {
        report.registered += 1;
        const found = await checkRegistration(record, keys, ceremonies, verify);
        const duplicate = typeof found === 'string' ? undefined : duplicateKey(found, publicKeys, publicKeyId);
        if (typeof found === 'string') problem(record.seq, found);
        else if (duplicate !== undefined) problem(record.seq, duplicate);
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
        const found = await checkDecision(record, requests.get(record.requestId), edits, keys, verify);
        if (found === 'verified' || found === 'verified_v1') report.verified += 1;
        if (found === 'verified_v1') report.unnamedApprover += 1;
        else if (found !== undefined && found !== 'verified') problem(record.seq, found);
        break;
      }
      default:
        break;
    }
  }
  if (options.table !== undefined) {
    for (const row of options.table) {
      const found = tableProblem(row, keys.get(row.credentialId));
      if (found !== undefined) report.problems.push({ credentialId: row.credentialId, reason: found });
    }
    // A row deleted from the table (removed rows stay: their keys check old decisions) is reported too.
    const rows = new Set(options.table.map((row) => row.credentialId));
    for (const key of keys.values()) {
      if (rows.has(key.registration.credentialId)) continue;
      const { credentialId, approver } = key.registration;
      report.problems.push({ credentialId, reason: `passkey_row_missing: ${credentialId} (${approver}) was registered in the chain (seq ${key.seq}) but has no row in the passkey table` });
    }
  }
  return report;
}

export interface PasskeyEvidenceOptions {
  /** The store's passkey rows: each must match the chain, and each key of the chain must have its row. */
  table?: readonly PasskeyCredential[] | undefined;
  /**
   * Names a public key independently of its encoding (the server's decodes the COSE key), or
   * undefined when it is not a supported key. Default: the encoded text itself.
   */
  publicKeyId?: ((publicKey: string) => string | undefined) | undefined;
}

/** A request as the chain opened it (`openedRequestOf`). */
interface ChainRequest {
  proposalId: string | undefined;
  expiresAt: number;
  passkey: boolean;
}

/** A proposal an approver's edit created: the original it replaces and its arguments' digest. */
interface EditedProposal {
  editedFrom: string;
  argsDigest: string;
}

/** Why a registration's public key does not count (unsupported, or registered before), or undefined; records it when it counts. */
function duplicateKey(registration: ChainedRegistration, publicKeys: Map<string, string>, publicKeyId: (publicKey: string) => string | undefined): string | undefined {
  const id = publicKeyId(registration.publicKey);
  if (id === undefined) return `passkey_registration_malformed: the public key of ${registration.credentialId} is not a supported COSE key`;
  const before = publicKeys.get(id);
  if (before !== undefined) {
    return `passkey_registration_duplicate_key: ${registration.credentialId} (${registration.approver}) carries the public key registered before as ${before}`;
  }
  publicKeys.set(id, `${registration.credentialId} (${registration.approver})`);
  return undefined;
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
  request: ChainRequest | undefined,
  edits: ReadonlyMap<string, EditedProposal>,
  keys: ReadonlyMap<string, ChainKey>,
  verify: OfflineAssertionCheck,
): Promise<'verified' | 'verified_v1' | string | undefined> {
  const detail = record.detail ?? {};
  if (detail.passkey === undefined) {
    return request?.passkey === true ? MISSING : undefined;
  }
  const evidence = readPasskeyEvidence(detail.passkey);
  if (evidence === undefined) return 'passkey_malformed: the stored assertion is not one';
  if (request === undefined) return 'passkey_unbound: no record opening its request precedes this decision';
  if (!Number.isSafeInteger(request.expiresAt)) return 'passkey_unbound: the record opening its request has no deadline';
  if (request.proposalId !== record.proposalId) return 'passkey_unbound: the decision is about another call than the record opening its request';
  // Only what the chain registered BEFORE this record, and had not removed by then, counts.
  const key = keys.get(evidence.credentialId);
  if (key === undefined) return `passkey_unregistered: ${evidence.credentialId} has no passkey_registered record before this decision`;
  if (key.registration.approver !== record.actor) return `passkey_wrong_approver: the passkey belongs to ${key.registration.approver}, the decision to ${record.actor}`;
  if (key.removedSeq !== undefined) return `passkey_removed: ${evidence.credentialId} was removed at seq ${key.removedSeq}, before this decision`;
  const signed = signedDecision(record.detail?.record);
  if (signed === undefined) return 'passkey_unbound: the decision record does not name the call';
  const mismatch = recordMismatch(record, signed);
  if (mismatch !== undefined) return `passkey_unbound: the signed decision record and the ledger's record differ in ${mismatch}`;
  const kind = decisionKind(record, edits);
  if (typeof kind === 'string') return kind;
  // Rebuilt from the chained records, claim by claim: the assertion counts only if it signed
  // exactly this call, request, approver, decision kind and edit.
  const build = (version: 1 | 2) =>
    passkeyChallenge(
      passkeyDecisionClaims(
        {
          runId: signed.run,
          sessionId: signed.sid,
          callId: signed.call,
          toolName: signed.tool,
          argsDigest: signed.args,
          principal: signed.sub,
          ...(signed.def === null ? {} : { definitionDigest: signed.def }),
        },
        { requestId: signed.req, expiresAt: request.expiresAt },
        { approver: signed.apr, ...kind },
        version,
      ),
    );
  const credential = credentialOf(key.registration);
  const checked = await verify({ evidence, challenge: build(2), credential });
  if (checked.ok) return 'verified';
  // A record made before claims named the approver (version 1).
  if ((await verify({ evidence, challenge: build(1), credential })).ok) return 'verified_v1';
  return `passkey_invalid: ${checked.message}`;
}

/**
 * What the approver must have signed for this record: a plain approve or deny (no edit),
 * or an edit, which closes the original request (`deny` with `editedProposalId`) and must
 * name the edited proposal the chain recorded, from this call, with the digest signed. An
 * edit's signature is accepted only as an edit: an edited-arguments digest on any other
 * record is refused, never read as approve-with-edits.
 */
function decisionKind(record: AuditRecord, edits: ReadonlyMap<string, EditedProposal>): { decision: 'approve' | 'deny'; editedArgsDigest?: string } | string {
  const detail = record.detail ?? {};
  const { decision, editedProposalId, editedArgsDigest } = detail;
  if (decision !== 'approve' && decision !== 'deny') return 'passkey_unbound: the decision is neither approve nor deny';
  if (editedProposalId === undefined) {
    if (editedArgsDigest !== undefined) return 'passkey_edit_mismatch: an edited-arguments digest on a decision that is not an edit (an edit signed for another call is not an approval)';
    return { decision };
  }
  if (typeof editedProposalId !== 'string' || typeof editedArgsDigest !== 'string') return 'passkey_unbound: an edit without its edited proposal or its edited-argument digest';
  if (decision !== 'deny') return `passkey_edit_mismatch: an edit closes the original call, but this record ${decision}s it`;
  const edited = edits.get(editedProposalId);
  if (edited === undefined || edited.editedFrom !== record.proposalId) {
    return `passkey_edit_mismatch: no edited proposal ${editedProposalId} from this call precedes the decision`;
  }
  if (edited.argsDigest !== editedArgsDigest) return `passkey_edit_mismatch: the edited proposal ${editedProposalId} carries other arguments than the edit signed`;
  return { decision: 'approve', editedArgsDigest };
}

/** The first claim of the signed decision record that disagrees with the audit record around it. */
function recordMismatch(record: AuditRecord, signed: SignedDecision): string | undefined {
  const detail = record.detail ?? {};
  const pairs: [string, unknown, unknown][] = [
    ['run', signed.run, record.runId],
    ['sid', signed.sid, record.sessionId],
    ['call', signed.call, record.callId],
    ['tool', signed.tool, record.toolName],
    ['args', signed.args, record.argsDigest],
    ['req', signed.req, record.requestId],
    ['prop', signed.prop, record.proposalId],
    ['apr', signed.apr, record.actor],
    ['dec', signed.dec, detail.decision],
    ['edit', signed.edit, detail.editedProposalId ?? null],
  ];
  return pairs.find(([, a, b]) => a !== b)?.[0];
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

/** The claims of a signed decision record the passkey check compares (its signature is checked elsewhere, with the server key). */
interface SignedDecision {
  run: string;
  sid: string;
  call: string;
  tool: string;
  args: string;
  def: string | null;
  sub: string;
  req: string;
  prop: string;
  apr: string;
  dec: string;
  edit: string | null;
}

const SIGNED_STRINGS = ['run', 'sid', 'call', 'tool', 'args', 'sub', 'req', 'prop', 'apr', 'dec'] as const;

/** The signed decision record's payload, or undefined when it is not one. */
function signedDecision(record: unknown): SignedDecision | undefined {
  if (typeof record !== 'string') return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(record.split('.')[1] ?? '', 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof payload !== 'object' || payload === null) return undefined;
  const p = payload as Record<string, unknown>;
  if (!SIGNED_STRINGS.every((name) => typeof p[name] === 'string')) return undefined;
  if ((p.def !== null && typeof p.def !== 'string') || (p.edit !== null && typeof p.edit !== 'string')) return undefined;
  return p as unknown as SignedDecision;
}
