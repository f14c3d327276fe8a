import type { AuditEvent, AuditRecord } from '../audit/types.ts';
import { evidenceJson, readPasskeyEvidence } from './assertion-shape.ts';
import type { PasskeyCredential, PasskeyEvidence } from './types.ts';

/** The actor of a removal made by an operator (lost-device recovery), not by the approver. */
export const OPERATOR_ACTOR = 'operator';

/**
 * A registration as its audit record states it. The public key is in the hash-chained
 * record (it is public), so `audit verify` checks assertions against the chain, never
 * against the passkey table, which anyone with write access to the store could change.
 */
export interface ChainedRegistration {
  credentialId: string;
  approver: string;
  /** COSE public key, base64url. */
  publicKey: string;
  /** COSE algorithm id, when the authenticator's key names one (-7 ES256, -8 EdDSA, -257 RS256). */
  algorithm?: number | undefined;
  /** The registration ceremony's WebAuthn challenge: the step-up claims are rebuilt from it. */
  challenge: string;
  /** `first`: the approver had no active passkey; `passkey`: `stepUp` was signed by one of theirs. */
  authorizedBy: 'first' | 'passkey';
  stepUp?: PasskeyEvidence | undefined;
}

export interface ChainedRemoval {
  credentialId: string;
  approver: string;
  removedBy: 'approver' | 'operator';
  /** Approver removals: the server's nonce and the step-up assertion over the removal claims. */
  nonce?: string | undefined;
  stepUp?: PasskeyEvidence | undefined;
}

export function registrationEvent(credential: PasskeyCredential, registration: Omit<ChainedRegistration, 'credentialId' | 'approver' | 'publicKey'>): AuditEvent {
  return {
    type: 'passkey_registered',
    at: credential.createdAt,
    actor: credential.approver,
    detail: {
      credentialId: credential.credentialId,
      approver: credential.approver,
      publicKey: credential.publicKey,
      ...(registration.algorithm === undefined ? {} : { algorithm: registration.algorithm }),
      challenge: registration.challenge,
      authorizedBy: registration.authorizedBy,
      ...(registration.stepUp === undefined ? {} : { stepUp: evidenceJson(registration.stepUp) }),
    },
  };
}

export function removalEvent(removal: ChainedRemoval, at: number): AuditEvent {
  return {
    type: 'passkey_removed',
    at,
    actor: removal.removedBy === 'operator' ? OPERATOR_ACTOR : removal.approver,
    detail: {
      credentialId: removal.credentialId,
      approver: removal.approver,
      removedBy: removal.removedBy,
      ...(removal.nonce === undefined ? {} : { nonce: removal.nonce }),
      ...(removal.stepUp === undefined ? {} : { stepUp: evidenceJson(removal.stepUp) }),
    },
  };
}

const str = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** A `passkey_registered` record's content, or undefined when it is malformed. */
export function readRegistration(record: AuditRecord): ChainedRegistration | undefined {
  const d = record.detail ?? {};
  if (!str(d.credentialId) || !str(d.approver) || !str(d.publicKey) || !str(d.challenge)) return undefined;
  if (record.actor !== d.approver) return undefined;
  if (d.algorithm !== undefined && !Number.isSafeInteger(d.algorithm)) return undefined;
  if (d.authorizedBy !== 'first' && d.authorizedBy !== 'passkey') return undefined;
  const stepUp = d.stepUp === undefined ? undefined : readPasskeyEvidence(d.stepUp);
  if (d.stepUp !== undefined && stepUp === undefined) return undefined;
  if ((d.authorizedBy === 'passkey') !== (stepUp !== undefined)) return undefined;
  return {
    credentialId: d.credentialId,
    approver: d.approver,
    publicKey: d.publicKey,
    ...(d.algorithm === undefined ? {} : { algorithm: d.algorithm as number }),
    challenge: d.challenge,
    authorizedBy: d.authorizedBy,
    ...(stepUp === undefined ? {} : { stepUp }),
  };
}

/** A `passkey_removed` record's content, or undefined when it is malformed. */
export function readRemoval(record: AuditRecord): ChainedRemoval | undefined {
  const d = record.detail ?? {};
  if (!str(d.credentialId) || !str(d.approver)) return undefined;
  if (d.removedBy === 'operator') return record.actor === OPERATOR_ACTOR ? { credentialId: d.credentialId, approver: d.approver, removedBy: 'operator' } : undefined;
  if (d.removedBy !== 'approver' || record.actor !== d.approver || !str(d.nonce)) return undefined;
  const stepUp = readPasskeyEvidence(d.stepUp);
  if (stepUp === undefined) return undefined;
  return { credentialId: d.credentialId, approver: d.approver, removedBy: 'approver', nonce: d.nonce, stepUp };
}
