import type { AuditRecord } from '../../audit/types.ts';
import type { GatePort } from '../../gate/common/port.ts';
import type { Proposal } from '../../ledger/types.ts';
import type { KitAgent } from './fixtures.ts';

/**
 * What `describeGateAttacks` needs from the wiring under test: keep it this small so a
 * user can write one for their own setup (in-process gate, `@countersign/client` over
 * HTTP, an integration). The gate behind it must use `ATTACK_KIT_POLICY_YAML` and
 * register `attackKitTools()`.
 *
 * The kit plays the agent itself: it proposes through `port`, runs a granted call only
 * after `authorize` returned a grant (counting each run), and reports with `complete`.
 * Every assertion is about outcomes and that count, so it holds for any transport that
 * returns the gate's typed outcomes (reasons included: the agent runtime is inside the
 * trust boundary; an unknown call may be mapped to `not_approved`/`unknown_call`).
 */
export interface GateAttackAdapter {
  /**
   * A port bound to one of the two agent identities in `KIT_AGENTS` (authenticated as
   * that agent). Called often: return a cached port or a cheap new one.
   */
  port(agent: KitAgent): GatePort;
  /** Decides a request as an eligible approver (role `kit-approver`); throws if refused. */
  decide(requestId: string, decision: 'approve' | 'deny'): Promise<void>;
  /**
   * Moves the gate's clock forward. Optional: without it the kit waits in real time
   * for `kit_quick`'s 1-second approval to expire (the gate must then use real time).
   */
  advanceClock?(ms: number): Promise<void> | void;
  /**
   * Optional capability: makes the gate see `toolName` (always `kit_pinned`) with
   * `KIT_CHANGED_DEFINITION` from now on. Without it the definition-change attack is skipped.
   */
  changeToolDefinition?(toolName: string): Promise<void>;
  /**
   * Optional capability: the audit chain's records, oldest first. With it the kit also
   * checks what each refusal wrote (the relay checks); without it those checks are skipped.
   */
  auditRecords?(): Promise<readonly AuditRecord[]>;
  /**
   * Optional capability: revokes an approved request as an eligible approver. Without it
   * the revoked-approval attack is skipped.
   */
  revoke?(requestId: string): Promise<void>;
  /**
   * Optional capability: signs `claims` with the gate's own active key, as the gate signs
   * a token it mints. The kit uses it to forge a token the gate could have issued, but for
   * another request or with another token id. Without it those attacks are skipped.
   */
  signClaims?(claims: Record<string, unknown>): string;
  /**
   * Optional capability: the gate's Ed25519 public key (PEM, SPKI) when it signs with one.
   * The kit then MACs a token with it under `alg: HS256` (key confusion). Without it, or
   * when the gate signs with HMAC, that attack is skipped.
   */
  publicKeyPem?(): string | undefined;
  /**
   * Optional capability: from now on the gate reads the stored row of `proposalId` as
   * `edit` leaves it, as an attacker who can write to the database would. Without it the
   * stored-row attacks are skipped.
   */
  tamperStoredCall?(proposalId: string, edit: (row: Proposal) => Proposal): Promise<void>;
  /** Called once after the suite. */
  close?(): Promise<void>;
}
