/**
 * The audit trail (invariant 10): an append-only, hash-chained log. Each record's
 * hash covers its content and the previous record's hash, so editing, reordering,
 * inserting or dropping a record breaks verification at that point.
 */

export type AuditEventType =
  | 'proposal'
  | 'verdict'
  | 'approval_requested'
  | 'decision'
  | 'token_minted'
  | 'dispatch'
  | 'rejection'
  | 'result'
  | 'revocation'
  /** An approver took back their own approval of a request still pending (n of m); the request stays pending. */
  | 'withdrawal'
  /** A tool's definition is not the trusted one; its pin moved to `changed` and a review opened. */
  | 'definition_changed'
  /** A tool's pin was set: trusted (review, trust on first use, pin file) or disabled (review denied). */
  | 'definition_pinned'
  /** A signed checkpoint of the chain head (`detail.checkpoint`), see audit-checkpoint.ts. */
  | 'checkpoint'
  /**
   * An approver's passkey was registered: its public key and how the registration was
   * authorized (`detail`, see passkey/change-events.ts). `audit verify` takes public keys
   * from these records, never from the passkey table.
   */
  | 'passkey_registered'
  /** A passkey was removed, by its approver (with a step-up assertion) or by an operator. */
  | 'passkey_removed';

/** JSON values that may appear in `detail`: digests and ids, never raw arguments or secrets. */
export type AuditValue = string | number | boolean | null | AuditValue[] | { [key: string]: AuditValue };

export interface AuditEvent {
  type: AuditEventType;
  /** Milliseconds since the epoch, from the injected clock. */
  at: number;
  runId?: string | undefined;
  sessionId?: string | undefined;
  callId?: string | undefined;
  proposalId?: string | undefined;
  requestId?: string | undefined;
  toolName?: string | undefined;
  /** SHA-256 (hex) of the canonical arguments the event is about. */
  argsDigest?: string | undefined;
  /** Who caused the event: the principal, an approver, or `system`. */
  actor?: string | undefined;
  /** Reason code for rejections, denials and failures. */
  reason?: string | undefined;
  detail?: { [key: string]: AuditValue } | undefined;
}

export interface AuditRecord extends AuditEvent {
  /** 1-based position in the chain. */
  seq: number;
  /** `hash` of the previous record; GENESIS_HASH for seq 1. */
  prevHash: string;
  /** SHA-256 (hex) over prevHash and the canonical form of this record without `hash`. */
  hash: string;
}

export interface AuditHead {
  seq: number;
  hash: string;
}

/** The read side of an audit log: what audit views and verifiers need, and no way to append. */
export type AuditReader = Pick<AuditLog, 'read' | 'head'>;

export interface AuditLog {
  /** Appends one event; concurrent appends still form a single chain. */
  append(event: AuditEvent): Promise<AuditRecord>;
  /** Records with seq > afterSeq (default 0), ascending, at most `limit`. */
  read(opts?: { afterSeq?: number; limit?: number }): Promise<AuditRecord[]>;
  head(): Promise<AuditHead | undefined>;
  close?(): Promise<void>;
  /**
   * A wrapper (e.g. CheckpointingAuditLog) names the log it forwards to, so the gate
   * can tell that a ledger appending to that log in its transactions (`LedgerStore.auditLog`)
   * appends to this chain.
   */
  readonly wrapped?: AuditLog | undefined;
  /**
   * Tells `listener`, after commit, of records a ledger transaction appended to this
   * chain (they did not go through `append`), so wrappers still see every record.
   * Returns the function that unsubscribes.
   */
  onLedgerAppend?(listener: (records: readonly AuditRecord[]) => void): () => void;
}
