import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/types.ts';
import type { CanonicalLimits } from '../canonical/limits.ts';
import { type Clock, systemClock } from '../clock.ts';
import { MemoryGateEvents } from '../events/memory-gate-events.ts';
import type { GateEvents } from '../events/types.ts';
import type { LedgerStore } from '../ledger/types.ts';
import type { PolicyEngine } from '../policy/types.ts';
import type { Keyring } from '../token/keyring.ts';
import { registeredCatalog } from '../catalog/registered-catalog.ts';
import { combineCatalogs, staticCatalog } from '../catalog/static-catalog.ts';
import type { DefinitionStore, ToolCatalog } from '../catalog/types.ts';
import type { ApproverRule } from '../ledger/types.ts';
import type { ToolRegistry } from '../catalog/tools.ts';
import { RELAY_PROJECTIONS, type RelayProjection } from './relay/projections.ts';
import { type ResolvedIntent, resolveIntent } from './intent/intent-stage.ts';
import { resolveSharedTools, type SharedTools } from './common/tool-scope.ts';
import type { IntentConfig } from './intent/types.ts';

/** Who re-approves a changed tool definition, and how long the review stays open. */
export interface DefinitionReviewRule {
  eligible: ApproverRule;
  requiredApprovals?: number | undefined;
  ttlSeconds?: number | undefined;
}

export interface ResolvedDefinitionReview {
  eligible: ApproverRule;
  requiredApprovals: number;
  ttlSeconds: number;
}

/** By default a holder of the `admin` role reviews a changed definition, within a week. */
export const DEFAULT_DEFINITION_REVIEW: ResolvedDefinitionReview = {
  eligible: { roles: ['admin'] },
  requiredApprovals: 1,
  ttlSeconds: 7 * 24 * 3600,
};

export interface GateConfig {
  ledger: LedgerStore;
  audit: AuditLog;
  policy: PolicyEngine;
  keyring: Keyring;
  /** Tools registered in code (shorthand for `catalog: staticCatalog(tools)`); the code is their pin. */
  tools?: ToolRegistry | undefined;
  /** Where tools are looked up; checked before `tools`' registry when both are given. */
  catalog?: ToolCatalog | undefined;
  /**
   * Tool definitions (by digest), pins and agent registrations: the store's, so every
   * replica shows the same definitions and pins. Required, like the ledger: memory is
   * asked for by name (`new MemoryDefinitionStore()`, or `createGate({ store: memoryStore() })`).
   */
  definitions: DefinitionStore;
  /**
   * Trust on first use: the first definition seen of a tool that is not vouched for (an
   * agent's registered tool, a dynamic catalogue's) becomes its pin. Default false: such
   * a tool is not trusted until a person approves its definition (deny by default).
   */
  trustOnFirstUse?: boolean | undefined;
  /** Who may re-approve a changed definition. Default `DEFAULT_DEFINITION_REVIEW` (role `admin`). */
  definitionReview?: DefinitionReviewRule | undefined;
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
  /**
   * The forms of a recorded tool result that `checkRelayed` accepts as relayed back to
   * the model faithfully (CASA check 5; see `RELAY_PROJECTIONS`). Default: all of them.
   * E.g. `['mcp_text', 'json', 'string']` accepts what most runtimes relay and refuses a
   * relay of only `structuredContent`; leave out `error` to refuse relaying failed calls.
   */
  relayProjections?: readonly RelayProjection[] | undefined;
  /**
   * The optional intent stage (see intent/types.ts): a task-to-tool matcher asked at
   * propose time, after policy, that can only deny (`intent_mismatch`) or route to a
   * person. Its verdict is kept with the call: authorize and dispatch never ask again.
   */
  intent?: IntentConfig | undefined;
  /**
   * Registered tools that agents other than the registering one may use: tool name to
   * agent ids, `"*"` for every agent. Default: none, so a tool an agent registered is
   * `unknown_tool` to every other agent (propose, authorize, `admitTool`).
   */
  sharedTools?: SharedTools | undefined;
}

/** GateConfig with defaults filled in; shared by the gate and the approval service. */
export interface GateDeps {
  ledger: LedgerStore;
  audit: AuditLog;
  policy: PolicyEngine;
  keyring: Keyring;
  /** The configured catalogue, then the tools agents registered in `definitions`. */
  catalog: ToolCatalog;
  definitions: DefinitionStore;
  trustOnFirstUse: boolean;
  definitionReview: ResolvedDefinitionReview;
  /** Digests this process already recorded in `definitions`, so a definition is written once, not per call. */
  recordedDefinitions: Set<string>;
  clock: Clock;
  newId: () => string;
  argumentLimits: Partial<CanonicalLimits>;
  clockToleranceSeconds: number;
  events: GateEvents;
  relayProjections: ReadonlySet<RelayProjection>;
  intent: ResolvedIntent | undefined;
  sharedTools: ReadonlyMap<string, ReadonlySet<string>>;
}

export function resolveConfig(config: GateConfig): GateDeps {
  const definitions = config.definitions;
  // Checked at run time too: a JavaScript caller that leaves it out would otherwise get a
  // gate whose pins live in no store at all.
  if (definitions === undefined || definitions === null) {
    throw new TypeError("GateConfig.definitions is required: pass the store's (store.definitions), or new MemoryDefinitionStore() for memory");
  }
  const configured = [config.catalog, config.tools === undefined ? undefined : staticCatalog(config.tools)].filter((c) => c !== undefined);
  return {
    ledger: config.ledger,
    audit: config.audit,
    policy: config.policy,
    keyring: config.keyring,
    catalog: combineCatalogs(...configured, registeredCatalog(definitions)),
    definitions,
    trustOnFirstUse: config.trustOnFirstUse ?? false,
    definitionReview: {
      eligible: config.definitionReview?.eligible ?? DEFAULT_DEFINITION_REVIEW.eligible,
      requiredApprovals: config.definitionReview?.requiredApprovals ?? DEFAULT_DEFINITION_REVIEW.requiredApprovals,
      ttlSeconds: config.definitionReview?.ttlSeconds ?? DEFAULT_DEFINITION_REVIEW.ttlSeconds,
    },
    recordedDefinitions: new Set(),
    clock: config.clock ?? systemClock,
    newId: config.newId ?? randomUUID,
    argumentLimits: config.argumentLimits ?? {},
    clockToleranceSeconds: config.clockToleranceSeconds ?? 5,
    events: config.events ?? new MemoryGateEvents(),
    relayProjections: resolveRelayProjections(config.relayProjections),
    intent: resolveIntent(config.intent),
    sharedTools: resolveSharedTools(config.sharedTools),
  };
}

/** The accepted projections; an unknown name is a configuration error (TypeError), not a silently ignored one. */
function resolveRelayProjections(names: readonly RelayProjection[] | undefined): ReadonlySet<RelayProjection> {
  if (names === undefined) return new Set(RELAY_PROJECTIONS);
  if (!Array.isArray(names)) throw new TypeError('relayProjections must be a list of projection names');
  for (const name of names) {
    if (!(RELAY_PROJECTIONS as readonly string[]).includes(name)) {
      throw new TypeError(`relayProjections: unknown projection ${JSON.stringify(name)} (known: ${RELAY_PROJECTIONS.join(', ')})`);
    }
  }
  return new Set(names);
}
