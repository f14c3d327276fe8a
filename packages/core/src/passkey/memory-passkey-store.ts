import type { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import type { AuditFor } from '../ledger/types.ts';
import type { AddCredentialOptions, AddCredentialResult, EnrolAuthority, PasskeyCredential, PasskeyStore } from './types.ts';

/**
 * Passkeys in memory: for tests and for a server whose ledger is in memory too. Every
 * method body runs without awaiting, so each is atomic on the event loop. Given `audit`
 * (the memory chain the gate writes), a change passed audit events appends them in the
 * same synchronous step, records built (and validated) before anything changes.
 */
export class MemoryPasskeyStore implements PasskeyStore {
  readonly auditLog: MemoryAuditLog | undefined;
  readonly #byId = new Map<string, PasskeyCredential>();
  /** The ceremony each credential was registered on, when its add named one. */
  readonly #ceremonies = new Map<string, string>();

  constructor(options: { audit?: MemoryAuditLog | undefined } = {}) {
    this.auditLog = options.audit;
  }

  async add(credential: PasskeyCredential, options: AddCredentialOptions = {}): Promise<AddCredentialResult> {
    const outcome = this.#addOutcome(credential, options.authority);
    return this.#commit(outcome, options.audit, () => {
      if (!outcome.ok) return;
      this.#byId.set(credential.credentialId, copy(credential));
      if (options.authority?.ceremony !== undefined) this.#ceremonies.set(credential.credentialId, options.authority.ceremony);
    });
  }

  #addOutcome(credential: PasskeyCredential, authority: EnrolAuthority | undefined): AddCredentialResult {
    if (this.#byId.has(credential.credentialId)) return { ok: false, reason: 'credential_exists' };
    if ([...this.#byId.values()].some((c) => c.publicKey === credential.publicKey)) return { ok: false, reason: 'public_key_exists' };
    if (authority === undefined) return { ok: true };
    const own = [...this.#byId.values()].filter((c) => c.approver === credential.approver);
    const active = own.filter((c) => c.removedAt === undefined);
    if (authority.by === 'first' && active.length > 0) return { ok: false, reason: 'not_first' };
    if (authority.by === 'passkey' && !active.some((c) => c.credentialId === authority.credentialId)) return { ok: false, reason: 'authority_gone' };
    const ceremony = authority.ceremony;
    return ceremony !== undefined && own.some((c) => this.#ceremonies.get(c.credentialId) === ceremony) ? { ok: false, reason: 'ceremony_spent' } : { ok: true };
  }

  async get(credentialId: string): Promise<PasskeyCredential | undefined> {
    const found = this.#byId.get(credentialId);
    return found === undefined ? undefined : copy(found);
  }

  async list(approver?: string | undefined): Promise<PasskeyCredential[]> {
    return [...this.#byId.values()]
      .filter((c) => approver === undefined || c.approver === approver)
      .sort((a, b) => a.createdAt - b.createdAt || (a.credentialId < b.credentialId ? -1 : 1))
      .map(copy);
  }

  async remove(approver: string, credentialId: string, now: number, audit?: AuditFor<boolean>): Promise<boolean> {
    const found = this.#byId.get(credentialId);
    const removable = found !== undefined && found.approver === approver && found.removedAt === undefined;
    return this.#commit(removable, audit, () => {
      if (removable) found.removedAt = now;
    });
  }

  async recordUse(credentialId: string, counter: number, at: number): Promise<boolean> {
    const found = this.#byId.get(credentialId);
    if (found === undefined || found.removedAt !== undefined || !counterAdvances(found.counter, counter)) return false;
    found.counter = counter;
    found.lastUsedAt = at;
    return true;
  }

  /** Builds the audit records first (they may be invalid), then applies the change and appends them. */
  #commit<R>(outcome: R, audit: AuditFor<R> | undefined, apply: () => void): R {
    if (audit !== undefined && this.auditLog === undefined) throw new TypeError('this MemoryPasskeyStore has no audit log to append to');
    const prepared = audit === undefined ? undefined : this.auditLog?.prepare(audit(outcome));
    apply();
    const records = prepared?.commit();
    if (records !== undefined && records.length > 0) this.auditLog?.notifyLedgerAppend(records);
    return outcome;
  }
}

/**
 * The WebAuthn counter rule (§6.1.1): a counting authenticator's counter must grow;
 * one that reports 0 every time (many synced passkeys) does not count at all.
 */
export function counterAdvances(stored: number, presented: number): boolean {
  return presented > stored || (presented === 0 && stored === 0);
}

function copy(c: PasskeyCredential): PasskeyCredential {
  return { ...c, ...(c.transports === undefined ? {} : { transports: [...c.transports] }) };
}
