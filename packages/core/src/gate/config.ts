import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/types.ts';
import type { CanonicalLimits } from '../canonical/limits.ts';
import { type Clock, systemClock } from '../clock.ts';
import type { LedgerStore } from '../ledger/types.ts';
import type { PolicyEngine } from '../policy/types.ts';
import type { Keyring } from '../token/keyring.ts';
import type { ToolRegistry } from './tools.ts';

export interface GateConfig {
  ledger: LedgerStore;
  audit: AuditLog;
  policy: PolicyEngine;
  keyring: Keyring;
  tools: ToolRegistry;
  /** Injected time source (invariant 8). Defaults to the system clock. */
  clock?: Clock | undefined;
  /** Id generator for proposals, requests and token ids. Defaults to random UUIDs. */
  newId?: (() => string) | undefined;
  /** Limits for untrusted argument JSON (depth, size). */
  argumentLimits?: Partial<CanonicalLimits> | undefined;
  /** Allowed clock difference when checking token times, in seconds. Default 5. */
  clockToleranceSeconds?: number | undefined;
}

/** GateConfig with defaults filled in; shared by the gate and the approval service. */
export interface GateDeps {
  ledger: LedgerStore;
  audit: AuditLog;
  policy: PolicyEngine;
  keyring: Keyring;
  tools: ToolRegistry;
  clock: Clock;
  newId: () => string;
  argumentLimits: Partial<CanonicalLimits>;
  clockToleranceSeconds: number;
}

export function resolveConfig(config: GateConfig): GateDeps {
  return {
    ...config,
    clock: config.clock ?? systemClock,
    newId: config.newId ?? randomUUID,
    argumentLimits: config.argumentLimits ?? {},
    clockToleranceSeconds: config.clockToleranceSeconds ?? 5,
  };
}
