/** When a key is locked and for how long. All durations in milliseconds. */
export interface ThrottleRule {
  /** Failures within `windowMs` that lock the key. */
  maxFailures: number;
  windowMs: number;
  /** First lockout; each further lockout of the same key doubles it, up to `maxLockoutMs`. */
  lockoutMs: number;
  maxLockoutMs: number;
}

interface Entry {
  /** Failure times inside the window, oldest first; never more than `maxFailures`. */
  failures: number[];
  lastFailureAt: number;
  lockedUntil: number;
  /** Lockouts so far: the exponent of the next lockout's doubling. */
  lockouts: number;
}

/**
 * Counts failed attempts per key (an approver id, a client address) and locks a key
 * after too many. Callers ask `retryAfterMs` BEFORE checking the secret and refuse
 * while it is positive, so a locked key learns nothing, not even through timing.
 *
 * In memory, per process: each replica counts on its own. At most `maxKeys` keys are
 * tracked; beyond that the least recently failing key is forgotten, so a flood of
 * fresh keys costs bounded memory (at the price of forgetting an old key early).
 */
export class AttemptLimiter {
  readonly #rule: ThrottleRule;
  readonly #maxKeys: number;
  // Map order is the eviction order: an entry is re-inserted on every failure.
  readonly #entries = new Map<string, Entry>();

  constructor(rule: ThrottleRule, maxKeys: number) {
    this.#rule = rule;
    this.#maxKeys = maxKeys;
  }

  /** Milliseconds until `key` may try again; 0 when it may try now. */
  retryAfterMs(key: string, now: number): number {
    const entry = this.#live(key, now);
    return entry === undefined ? 0 : Math.max(0, entry.lockedUntil - now);
  }

  /** Records a failed attempt; the one that reaches `maxFailures` starts a lockout. */
  recordFailure(key: string, now: number): void {
    const rule = this.#rule;
    const entry = this.#live(key, now) ?? { failures: [], lastFailureAt: now, lockedUntil: 0, lockouts: 0 };
    // Callers do not attempt while locked; a failure reported anyway must not extend the lockout.
    if (now < entry.lockedUntil) return;
    entry.failures = entry.failures.filter((at) => now - at < rule.windowMs);
    entry.failures.push(now);
    entry.lastFailureAt = now;
    if (entry.failures.length >= rule.maxFailures) {
      entry.lockedUntil = now + Math.min(rule.lockoutMs * 2 ** entry.lockouts, rule.maxLockoutMs);
      entry.lockouts += 1;
      // A new round of attempts starts after the lockout; the doubling remembers the earlier rounds.
      entry.failures = [];
    }
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    this.#evict();
  }

  /** Forgets `key` (after a successful login, for the approver id). */
  reset(key: string): void {
    this.#entries.delete(key);
  }

  /** Keys currently tracked. */
  get size(): number {
    return this.#entries.size;
  }

  #live(key: string, now: number): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#expired(entry, now)) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  // A key is forgiven (and its doubling forgotten) after a quiet window following its last failure and lockout.
  #expired(entry: Entry, now: number): boolean {
    return now - Math.max(entry.lastFailureAt, entry.lockedUntil) >= this.#rule.windowMs;
  }

  #evict(): void {
    // The first entry is the least recently failing one: the most likely to have expired anyway.
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxKeys) return;
      this.#entries.delete(key);
    }
  }
}
