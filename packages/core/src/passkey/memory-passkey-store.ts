import type { AddCredentialResult, PasskeyCredential, PasskeyStore } from './types.ts';

/** Passkeys in memory: for tests and for a server whose ledger is in memory too. */
export class MemoryPasskeyStore implements PasskeyStore {
  readonly #byId = new Map<string, PasskeyCredential>();

  async add(credential: PasskeyCredential): Promise<AddCredentialResult> {
    if (this.#byId.has(credential.credentialId)) return { ok: false, reason: 'credential_exists' };
    this.#byId.set(credential.credentialId, copy(credential));
    return { ok: true };
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

  async remove(approver: string, credentialId: string, now: number): Promise<boolean> {
    const found = this.#byId.get(credentialId);
    if (found === undefined || found.approver !== approver || found.removedAt !== undefined) return false;
    found.removedAt = now;
    return true;
  }

  async recordUse(credentialId: string, counter: number, at: number): Promise<boolean> {
    const found = this.#byId.get(credentialId);
    if (found === undefined || found.removedAt !== undefined || !counterAdvances(found.counter, counter)) return false;
    found.counter = counter;
    found.lastUsedAt = at;
    return true;
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
