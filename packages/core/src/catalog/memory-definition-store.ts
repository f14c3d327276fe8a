import type { DefinitionStore, PinState, RegisterResult, ToolPin, ToolRegistration } from './types.ts';

/** Definitions, pins and registrations in memory: for tests and in-process gates. */
export class MemoryDefinitionStore implements DefinitionStore {
  readonly #definitions = new Map<string, { text: string; firstSeenAt: number }>();
  readonly #pins = new Map<string, ToolPin>();
  readonly #registrations = new Map<string, ToolRegistration>();

  async recordDefinition(digest: string, text: string, now: number): Promise<void> {
    if (!this.#definitions.has(digest)) this.#definitions.set(digest, { text, firstSeenAt: now });
  }

  async getDefinitionText(digest: string): Promise<{ text: string; firstSeenAt: number } | undefined> {
    const found = this.#definitions.get(digest);
    return found === undefined ? undefined : { ...found };
  }

  async getPin(toolName: string): Promise<ToolPin | undefined> {
    const pin = this.#pins.get(toolName);
    return pin === undefined ? undefined : { ...pin };
  }

  async listPins(): Promise<ToolPin[]> {
    return [...this.#pins.values()].map((p) => ({ ...p })).sort((a, b) => compare(a.toolName, b.toolName));
  }

  async replacePin(expected: PinState | undefined, next: ToolPin): Promise<boolean> {
    const current = this.#pins.get(next.toolName);
    if (expected === undefined ? current !== undefined : current === undefined || !sameState(current, expected)) return false;
    this.#pins.set(next.toolName, { ...next });
    return true;
  }

  async putPin(pin: ToolPin): Promise<void> {
    this.#pins.set(pin.toolName, { ...pin });
  }

  async register(registration: ToolRegistration): Promise<RegisterResult> {
    const current = this.#registrations.get(registration.toolName);
    if (current !== undefined && current.agent !== registration.agent) return { ok: false, reason: 'registered_by_other_agent' };
    this.#registrations.set(registration.toolName, { ...registration });
    return { ok: true };
  }

  async getRegistration(toolName: string): Promise<ToolRegistration | undefined> {
    const found = this.#registrations.get(toolName);
    return found === undefined ? undefined : { ...found };
  }

  async listRegistrations(): Promise<ToolRegistration[]> {
    return [...this.#registrations.values()].map((r) => ({ ...r })).sort((a, b) => compare(a.toolName, b.toolName));
  }
}

export function sameState(a: PinState, b: PinState): boolean {
  return a.status === b.status && a.trustedDigest === b.trustedDigest && a.pendingDigest === b.pendingDigest && a.updatedAt === b.updatedAt;
}

// Code-unit order, the same as SQL's binary collation, so every store lists alike.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
