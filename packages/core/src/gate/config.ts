import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/types.ts';
import type { CanonicalLimits } from '../canonical/limits.ts';
import { type Clock, systemClock } from '../clock.ts';
import { MemoryGateEvents } from '../events/memory-gate-events.ts';
import type { GateEvents } from '../events/types.ts';
import type { LedgerStore } from '../ledger/types.ts';
import type { PolicyEngine } from '../policy/types.ts';
import type { Keyring } from '../token/keyring.ts';
import { definitionDigest, type Tool, type ToolRegistry } from './tools.ts';

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
  /**
   * Where lifecycle events go (proposed, decided, authorized...), after each commit.
   * Defaults to an in-process bus; several replicas on one database pass a bus that
   * reaches the others (e.g. @countersign/store-postgres's LISTEN/NOTIFY bus).
   */
  events?: GateEvents | undefined;
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
  events: GateEvents;
  /** The registry indexed by name, with each definition's digest pinned when the gate was built. */
  toolIndex: ReadonlyMap<string, PinnedTool>;
}

export interface PinnedTool {
  tool: Tool;
  definitionDigest: string | undefined;
}

export function resolveConfig(config: GateConfig): GateDeps {
  return {
    ...config,
    clock: config.clock ?? systemClock,
    newId: config.newId ?? randomUUID,
    argumentLimits: config.argumentLimits ?? {},
    clockToleranceSeconds: config.clockToleranceSeconds ?? 5,
    events: config.events ?? new MemoryGateEvents(),
    toolIndex: indexTools(config.tools),
  };
}

/**
 * Pins every tool's definition digest once. A gate's tools are fixed for its
 * lifetime: a definition that changes means a new gate (or, for MCP servers, the
 * gateway's live check), and calls proposed under the old digest stop dispatching.
 * Only own keys count, so "constructor" or "__proto__" never resolve to Object.prototype.
 */
function indexTools(tools: ToolRegistry): ReadonlyMap<string, PinnedTool> {
  const index = new Map<string, PinnedTool>();
  for (const name of Object.keys(tools)) {
    const tool = tools[name]!;
    index.set(name, { tool, definitionDigest: tool.definition ? definitionDigest(tool.definition) : undefined });
  }
  return index;
}
