import { randomUUID } from 'node:crypto';
import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import type { DefinitionStore } from '../catalog/types.ts';
import type { AuditLog } from '../audit/types.ts';
import { manualClock } from '../clock.ts';
import type { GateEvents } from '../events/types.ts';
import { Gate } from '../gate/gate.ts';
import type { RequestView } from '../gate/approvals/index.ts';
import type { Approver } from '../gate/approvals/eligibility.ts';
import type { ModelToolCall } from '../gate/propose/propose.ts';
import type { IntentConfig } from '../gate/intent/types.ts';
import type { SharedTools } from '../gate/common/tool-scope.ts';
import type { Tool, ToolRegistry } from '../catalog/tools.ts';
import { MemoryDefinitionStore } from '../catalog/memory-definition-store.ts';
import { MemoryLedger } from '../ledger/memory-ledger.ts';
import type { LedgerStore } from '../ledger/types.ts';
import { loadPolicy } from '../policy/load.ts';
import type { PolicyEngine } from '../policy/types.ts';
import { hmacKey, Keyring } from '../token/keyring.ts';

/** The policy the shared fixture uses: small transfers run, larger ones need approval. */
export const FIXTURE_POLICY_YAML = `
version: 1
rules:
  - id: reads
    tools: [read_file, get_balance]
    verdict: allow
  - id: small-transfers
    tool: transfer
    when:
      type: object
      properties: { amount: { type: number, maximum: 100 } }
      required: [amount]
    verdict: allow
  - id: transfers
    tool: transfer
    verdict: approve
    approval:
      approvers: { roles: [finance], principalSelf: false }
      ttlSeconds: 600
  - id: deploys
    tool: deploy
    verdict: approve
    approval:
      approvers: { approvers: [alice, bob, carol] }
      required: 2
  - id: no-deletes
    tool: "delete_*"
    verdict: deny
`;

export const FIXTURE_SECRET = Buffer.alloc(32, 0x5a);
export const FINANCE: Approver = { id: 'fiona', roles: ['finance'] };

export interface Execution {
  tool: string;
  args: unknown;
  callId: string;
}

export interface GateFixtureOptions {
  ledger?: LedgerStore;
  audit?: AuditLog;
  policy?: PolicyEngine;
  keyring?: Keyring;
  tools?: ToolRegistry;
  /** Tool definitions and pins (default: memory). */
  definitions?: DefinitionStore;
  trustOnFirstUse?: boolean;
  /** The gate's event bus (default: its own in-memory one, as for a separate replica). */
  events?: GateEvents;
  /** The gate's optional intent stage. */
  intent?: IntentConfig;
  /** Registered tools shared with agents other than the registering one. */
  sharedTools?: SharedTools;
}

/**
 * A gate wired to real stores (memory by default) with recording demo tools, for
 * attack suites in core, the stores and the integrations.
 */
export function makeGateFixture(options: GateFixtureOptions = {}) {
  const clock = manualClock(Date.UTC(2026, 5, 1, 12));
  const executions: Execution[] = [];
  const recorder =
    (tool: string, result: (args: unknown) => unknown = () => ({ ok: true })): Tool =>
    ({
      execute: (args, context) => {
        executions.push({ tool, args, callId: context.callId });
        return result(args);
      },
    });
  const tools: ToolRegistry = options.tools ?? {
    read_file: recorder('read_file', () => ({ content: 'hello' })),
    get_balance: recorder('get_balance', () => ({ balance: 1000 })),
    transfer: {
      ...recorder('transfer', (args) => ({ transferred: (args as { amount: number }).amount })),
      definition: {
        name: 'transfer',
        description: 'Move money to a recipient',
        inputSchema: { type: 'object', properties: { amount: { type: 'number' }, to: { type: 'string' } } },
      },
    },
    deploy: recorder('deploy'),
    delete_repo: recorder('delete_repo'),
    unlisted_tool: recorder('unlisted_tool'),
  };
  const audit = options.audit ?? new MemoryAuditLog();
  // The memory store's ledger appends to its audit log in the same step, like the SQL stores.
  const ledger = options.ledger ?? new MemoryLedger({ audit: audit instanceof MemoryAuditLog ? audit : undefined });
  const keyring = options.keyring ?? new Keyring([hmacKey('k1', FIXTURE_SECRET)]);
  const policy = options.policy ?? loadPolicy(FIXTURE_POLICY_YAML, 'yaml');
  // Readable ids, unique across fixtures that share one ledger.
  const idPrefix = randomUUID().slice(0, 8);
  let nextId = 0;
  const gate = new Gate({
    ledger,
    audit,
    policy,
    keyring,
    tools,
    clock,
    newId: () => `${idPrefix}-${++nextId}`,
    definitions: options.definitions ?? new MemoryDefinitionStore(),
    trustOnFirstUse: options.trustOnFirstUse,
    events: options.events,
    intent: options.intent,
    sharedTools: options.sharedTools,
  });
  // Dispatch selects a call by the proposal id propose returned. Attack tests build
  // dispatch requests from the model call, so the fixture remembers each call's
  // proposal id (per ledger: fixtures sharing a ledger share what was proposed).
  const proposalIds = proposalIdsOf(ledger);
  const proposeAndRemember = gate.propose.bind(gate);
  gate.propose = async (modelCall, agent) => {
    const outcome = await proposeAndRemember(modelCall, agent);
    if ('proposalId' in outcome && outcome.proposalId !== undefined && typeof modelCall === 'object' && modelCall !== null) {
      proposalIds.set(callKey(modelCall), outcome.proposalId);
    }
    return outcome;
  };

  let nextCall = 0;
  const call = (overrides: Partial<ModelToolCall> = {}): ModelToolCall => ({
    runId: 'run-1',
    sessionId: 'session-1',
    principal: 'user:42',
    callId: `call-${++nextCall}`,
    toolName: 'transfer',
    arguments: '{"amount":500,"to":"alice"}',
    ...overrides,
  });

  /** Proposes a call, has FINANCE approve it and returns the token. */
  async function proposeAndApprove(overrides: Partial<ModelToolCall> = {}, approver: Approver = FINANCE) {
    const modelCall = call(overrides);
    const proposed = await gate.propose(modelCall);
    if (proposed.status !== 'approval_required') throw new Error(`expected approval_required, got ${proposed.status}`);
    const decided = await gate.approvals.decide(approver, { requestId: proposed.requestId, decision: 'approve' });
    if (!decided.ok) throw new Error(`decision failed: ${decided.reason}`);
    const issued = await gate.approvals.token(proposed.requestId);
    if (!issued.ok) throw new Error(`no token: ${issued.reason}`);
    return { call: modelCall, requestId: proposed.requestId, proposalId: proposed.proposalId, token: issued.token };
  }

  /** The dispatch request an honest runtime sends for `modelCall` (a call never proposed gets an id nobody has). */
  const dispatchFor = (modelCall: ModelToolCall, token?: string) => ({
    proposalId: proposalIds.get(callKey(modelCall)) ?? 'never-proposed',
    runId: modelCall.runId,
    callId: modelCall.callId,
    sessionId: modelCall.sessionId,
    principal: modelCall.principal,
    toolName: modelCall.toolName,
    arguments: modelCall.arguments,
    token,
  });

  return { gate, clock, ledger, audit, keyring, executions, call, proposeAndApprove, dispatchFor };
}

const PROPOSAL_IDS = new WeakMap<LedgerStore, Map<string, string>>();

function proposalIdsOf(ledger: LedgerStore): Map<string, string> {
  let ids = PROPOSAL_IDS.get(ledger);
  if (ids === undefined) {
    ids = new Map();
    PROPOSAL_IDS.set(ledger, ids);
  }
  return ids;
}

function callKey(call: Pick<ModelToolCall, 'runId' | 'callId'>): string {
  return `${call.runId}\u0000${call.callId}`;
}

/** Test shorthand: the request's view, undefined when not found (throws when the store fails). */
export async function requestView(gate: Gate, requestId: string): Promise<RequestView | undefined> {
  const found = await gate.approvals.view(requestId);
  if (found.ok) return found.view;
  if (found.reason === 'not_found') return undefined;
  throw new Error(found.message);
}

/** Test shorthand: the requests `approver` may decide (throws when the store fails). */
export async function listedFor(gate: Gate, ...args: Parameters<Gate['approvals']['listFor']>): Promise<RequestView[]> {
  const listed = await gate.approvals.listFor(...args);
  if (!listed.ok) throw new Error(listed.message);
  return listed.views;
}
