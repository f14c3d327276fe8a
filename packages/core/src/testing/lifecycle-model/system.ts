import type { AuditLog } from '../../audit/types.ts';
import { MemoryDefinitionStore } from '../../catalog/memory-definition-store.ts';
import { parseToolDefinition } from '../../catalog/parse-definition.ts';
import type { DefinitionStore } from '../../catalog/types.ts';
import { findReview } from '../../gate/definitions/definition-review.ts';
import { manualClock } from '../../clock.ts';
import type { Agent } from '../../gate/common/agent.ts';
import { Gate } from '../../gate/gate.ts';
import type { Grant } from '../../gate/execute/grant.ts';
import type { ToolRegistry } from '../../catalog/tools.ts';
import type { LedgerStore } from '../../ledger/types.ts';
import { loadPolicy } from '../../policy/load.ts';
import { hmacKey, Keyring } from '../../token/keyring.ts';
import type { Action } from './actions.ts';
import { FaultLedger, type InjectedRecord } from './fault-ledger.ts';
import { completionOf, GRANTED, MODEL_START, type ModelState, otherTokenKey } from './model.ts';
import {
  argumentsOf,
  CODE_TOOLS,
  MODEL_APPROVERS,
  MODEL_DEFINITIONS,
  MODEL_PRINCIPAL,
  MODEL_REVIEW,
  MODEL_SESSION,
  MODEL_POLICY_YAML,
  type ModelDefinition,
  REGISTERED_TOOL,
} from './rules.ts';

/** The stores one gate process runs on. `open` again after `close` is a restart: the same data, reopened. */
export interface OpenedStores {
  ledger: LedgerStore;
  audit: AuditLog;
  /** The store's definitions, pins and registrations (default: one memory store for the history, kept over restarts). */
  definitions?: DefinitionStore | undefined;
  close(): Promise<void>;
}

/** A store under test: a fresh one per history. */
export interface LifecycleHarness {
  /**
   * Opens the history's store (again after a restart: from disk or the database). Called
   * once per replica when `replicas` > 1: each is a separate connection to the same data.
   */
  open(): Promise<OpenedStores>;
  /** Gate instances on the same data (default 1); steps go to them in turn, a restart kills one. */
  replicas?: number | undefined;
  /** Closes and removes everything. */
  destroy(): Promise<void>;
}

/** What the gate answered, normalized: the outcome's status (or a failure's reason) and its reason. */
export interface Observed {
  status: string;
  reason?: string | undefined;
}

/** What the real side knows about a call, keyed like the model: ids the gate assigned, what the agent holds. */
export interface CallRefs {
  proposalId: string;
  callId: string;
  requestId?: string | undefined;
  token?: string | undefined;
  grant?: Grant | undefined;
}

/** What the agents hold (ids, tokens, grants) and the time: what a killed gate process leaves behind outside the store. */
export interface AgentKnowledge {
  refs: Record<string, CallRefs>;
  grants: GrantRecord[];
  nextId: number;
  idPrefix: string;
  now: number;
}

/** A grant authorize handed out: the call then "runs" (the agent runs what the grant says). */
export interface GrantRecord {
  key: string;
  grant: Grant;
}

const SECRET = Buffer.alloc(32, 0x4d);
const policy = loadPolicy(MODEL_POLICY_YAML, 'yaml');
const tools: ToolRegistry = Object.fromEntries(CODE_TOOLS.map((name) => [name, { execute: () => ({ ok: true }) }]));

/** The digest the gate gives each of the registered tool's definitions. */
export function digestOf(definition: ModelDefinition): string {
  const parsed = parseToolDefinition(MODEL_DEFINITIONS[definition]);
  if (!parsed.ok) throw new Error(`model definition ${definition} does not parse: ${parsed.message}`);
  return parsed.digest;
}

export const agentOf = (id: string): Agent => ({ id });

/**
 * The real side of a history: a Gate on the harness's store behind a fault-injecting
 * ledger, an injected clock, and the ids, tokens and grants the agents hold.
 */
export class RealSystem {
  readonly clock = manualClock(MODEL_START);
  readonly refs: Record<string, CallRefs> = {};
  readonly grants: GrantRecord[] = [];
  readonly harness: LifecycleHarness;
  /** Definitions, pins and registrations when the harness's stores bring none: one for the history, kept over restarts. */
  readonly #memoryDefinitions = new MemoryDefinitionStore();
  #nextId = 0;
  #idPrefix = 'id-';
  #replicas: { opened: OpenedStores; faults: FaultLedger; gate: Gate }[] = [];
  /** Faults injected on any replica, in the order they happened. */
  readonly #injected: InjectedRecord[] = [];
  /** Which replica the next action goes to. */
  #turn = 0;

  constructor(harness: LifecycleHarness) {
    this.harness = harness;
  }

  async start(): Promise<void> {
    await this.#openReplicas();
    // Before step 0: agent-a registers the tool, and its first definition is trusted on first use.
    const gate = this.#replicas[0]!.gate;
    const registered = await gate.registerTools([MODEL_DEFINITIONS.v1], agentOf('agent-a'));
    const admitted = await gate.admitTool(REGISTERED_TOOL, agentOf('agent-a'));
    if (!registered.ok || !admitted.ok) throw new Error(`the registered tool could not be set up: ${JSON.stringify({ registered, admitted })}`);
  }

  async #openReplicas(): Promise<void> {
    const count = Math.max(1, this.harness.replicas ?? 1);
    for (let i = 0; i < count; i++) this.#replicas.push(await this.#open());
  }

  /** What the agents and the clock hold outside the process running the gate: all that survives its death. */
  knowledge(): AgentKnowledge {
    return structuredClone({ refs: this.refs, grants: this.grants, nextId: this.#nextId, idPrefix: this.#idPrefix, now: this.clock() });
  }

  /**
   * Takes over after the process that ran the gate was killed: the agents' knowledge from
   * it, and a fresh gate on the reopened store (no set-up: the store already holds it).
   * Ids go on under a new prefix: the killed process may have used ids it never reported.
   */
  async resume(knowledge: AgentKnowledge): Promise<void> {
    Object.assign(this.refs, structuredClone(knowledge.refs));
    this.grants.push(...structuredClone(knowledge.grants));
    this.#nextId = 0;
    this.#idPrefix = `${knowledge.idPrefix}k`;
    this.clock.set(knowledge.now);
    await this.#openReplicas();
  }

  async #open() {
    const opened = await this.harness.open();
    const faults = new FaultLedger(opened.ledger, this.#injected);
    const gate = new Gate({
      ledger: faults.store,
      audit: opened.audit,
      policy,
      keyring: new Keyring([hmacKey('k1', SECRET)]),
      tools,
      definitions: faults.wrapDefinitions(opened.definitions ?? this.#memoryDefinitions),
      trustOnFirstUse: true,
      definitionReview: { eligible: { approvers: [...MODEL_REVIEW.eligible] }, requiredApprovals: MODEL_REVIEW.required, ttlSeconds: MODEL_REVIEW.ttlSeconds },
      sharedTools: { [REGISTERED_TOOL]: ['*'] },
      clock: this.clock,
      // Deterministic ids, never reused across restarts or replicas: a replayed seed makes the same calls.
      newId: () => `${this.#idPrefix}${++this.#nextId}`,
    });
    return { opened, faults, gate };
  }

  /** The replica the next action goes to (in turn). */
  #next() {
    const replica = this.#replicas[this.#turn % this.#replicas.length]!;
    this.#turn++;
    return replica;
  }

  /** Process death between two steps: one replica's memory is dropped and its store reopened. */
  async restart(): Promise<void> {
    const index = this.#turn % this.#replicas.length;
    await this.#replicas[index]!.opened.close();
    this.#replicas[index] = await this.#open();
  }

  /** Arms the same fault on every replica: only the one the action goes to makes store calls. */
  arm(fault: Parameters<FaultLedger['arm']>[0]): void {
    for (const r of this.#replicas) r.faults.arm(fault);
  }

  /** Faults injected so far, over all replicas. */
  get injected(): number {
    return this.#injected.length;
  }

  /** The last fault injected (for messages). */
  get lastInjected(): InjectedRecord | undefined {
    return this.#injected.at(-1);
  }

  /** Lets a scheduler decide which store call goes next, on every replica (undefined: no scheduling). */
  schedule(beforeCall: FaultLedger['beforeCall']): void {
    for (const r of this.#replicas) r.faults.beforeCall = beforeCall;
  }

  /** The store without faults or scheduling: where the truth is read. */
  get ledger(): LedgerStore {
    return this.#replicas[0]!.faults.target;
  }

  /** The definition store the truth about pins is read from. */
  get definitions(): DefinitionStore {
    return this.#replicas[0]!.opened.definitions ?? this.#memoryDefinitions;
  }

  get audit(): AuditLog {
    return this.#replicas[0]!.opened.audit;
  }

  async stop(): Promise<void> {
    for (const r of this.#replicas) await r.opened.close().catch(() => undefined);
  }

  /** Performs one action; `model` is the state before it (for which held token an `other` authorize presents). */
  async perform(action: Action, model: ModelState): Promise<Observed[]> {
    const gate = this.#next().gate;
    switch (action.kind) {
      case 'tick':
        this.clock.advance(action.seconds * 1000);
        return [{ status: 'ok' }];
      case 'restart':
        await this.restart();
        return [{ status: 'ok' }];
      case 'propose': {
        const agent = agentOf(action.agent);
        const calls = action.calls.map((c) => ({ id: c.callId, name: c.tool, arguments: argumentsOf(c.tool, c.amount) }));
        const authorizeAllowed = action.authorize === true;
        const outcomes =
          calls.length === 1
            ? [
                await gate.propose(
                  { runId: action.run, sessionId: MODEL_SESSION, principal: MODEL_PRINCIPAL, callId: calls[0]!.id, toolName: calls[0]!.name, arguments: calls[0]!.arguments, authorizeAllowed },
                  agent,
                ),
              ]
            : await gate.proposeResponse({ runId: action.run, sessionId: MODEL_SESSION, principal: MODEL_PRINCIPAL, toolCalls: calls, authorizeAllowed }, agent);
        return outcomes.map((o, i) => {
          if (o.status !== 'allowed' || o.grant === undefined) return { status: o.status, reason: 'reason' in o ? o.reason : undefined };
          // Held like a grant from authorize (learnIds files it under the call's refs).
          this.grants.push({ key: `${action.run}/${calls[i]!.id}`, grant: o.grant });
          return { status: o.status, reason: GRANTED };
        });
      }
      case 'decide':
      case 'edit': {
        const refs = this.refs[action.call];
        const input =
          action.kind === 'edit'
            ? { requestId: refs?.requestId ?? 'unknown', decision: 'approve' as const, editedArguments: argumentsOf('transfer', action.amount) }
            : { requestId: refs?.requestId ?? 'unknown', decision: action.decision };
        const outcome = await gate.approvals.decide(MODEL_APPROVERS[action.approver]!, input);
        return [outcome.ok ? { status: 'ok' } : { status: outcome.reason }];
      }
      case 'revoke': {
        const outcome = await gate.approvals.revoke(MODEL_APPROVERS[action.approver]!, this.refs[action.call]?.requestId ?? 'unknown');
        return [outcome.ok ? { status: 'ok' } : { status: outcome.reason }];
      }
      case 'withdraw': {
        const outcome = await gate.approvals.withdraw(MODEL_APPROVERS[action.approver]!, this.refs[action.call]?.requestId ?? 'unknown');
        return [outcome.ok ? { status: 'ok' } : { status: outcome.reason }];
      }
      case 'token': {
        const refs = this.refs[action.call];
        const owner = model.calls[action.call]!.agent;
        const outcome = await gate.approvals.token(refs?.requestId ?? 'unknown', agentOf(owner));
        if (outcome.ok && refs !== undefined) refs.token = outcome.token;
        return [outcome.ok ? { status: 'ok' } : { status: outcome.reason }];
      }
      case 'authorize': {
        const refs = this.refs[action.call];
        const other = otherTokenKey(model, action.call);
        const token = action.token === 'own' ? refs?.token : action.token === 'other' && other !== undefined ? this.refs[other]?.token : undefined;
        const outcome = await gate.authorize({ proposalId: refs?.proposalId ?? 'unknown', token }, agentOf(action.agent));
        if (outcome.status === 'authorized') {
          if (refs !== undefined) refs.grant = outcome.grant;
          this.grants.push({ key: action.call, grant: outcome.grant });
          return [{ status: 'authorized' }];
        }
        return [{ status: outcome.status, reason: 'reason' in outcome ? outcome.reason : undefined }];
      }
      case 'complete': {
        const call = model.calls[action.call]!;
        const grant = this.refs[action.call]?.grant;
        if (grant === undefined) return [{ status: 'no_grant_held' }];
        const outcome = await gate.complete(grant, completionOf(call, action.outcome), agentOf(call.agent));
        return [outcome.ok ? { status: 'ok' } : { status: outcome.reason }];
      }
      case 'redefine': {
        const registered = await gate.registerTools([MODEL_DEFINITIONS[action.definition]], agentOf('agent-a'));
        if (!registered.ok) return [{ status: registered.reason }];
        const admitted = await gate.admitTool(REGISTERED_TOOL, agentOf('agent-a'));
        return [admitted.ok ? { status: 'ok' } : { status: admitted.reason }];
      }
      case 'review': {
        const requestId = await this.reviewRequestId(model.definition.latestReview!);
        const outcome = await gate.approvals.decide(MODEL_APPROVERS[action.approver]!, { requestId: requestId ?? 'unknown', decision: action.decision });
        return [outcome.ok ? { status: 'ok' } : { status: outcome.reason }];
      }
      case 'relay': {
        const call = model.calls[action.call]!;
        const refs = this.refs[action.call];
        const content = action.honest ? { transferred: call.amount } : { transferred: call.amount + 1 };
        const outcome = await gate.checkRelayed({ runId: call.run, toolMessages: [{ callId: refs?.callId ?? 'unknown', content }] }, agentOf(call.agent));
        return [outcome.ok ? { status: 'ok' } : { status: outcome.reason }];
      }
    }
  }

  /** The request of the review the model keys `<definition>@<pin's updatedAt>`, found the way the gate finds it. */
  async reviewRequestId(key: string): Promise<string | undefined> {
    const [definition, at] = key.split('@') as [ModelDefinition, string];
    const pin = { toolName: REGISTERED_TOOL, status: 'changed' as const, pendingDigest: digestOf(definition), updatedAt: Number(at) };
    return (await findReview({ ledger: this.ledger }, pin))?.requestId;
  }

  /**
   * Learns the ids of every call the model knows from the store itself (not from the
   * gate's answers, which a lost reply withholds): base calls by (run, call id), an
   * edited call through the deny that closed its original.
   */
  async learnIds(model: ModelState): Promise<void> {
    for (const key of Object.keys(model.calls).sort()) {
      if (this.refs[key] !== undefined) continue;
      const [run, rest] = key.split('/') as [string, string];
      let proposalId: string | undefined;
      if (rest.endsWith('~edit')) {
        const original = this.refs[key.slice(0, -'~edit'.length)];
        const request = original?.requestId === undefined ? undefined : await this.ledger.getApprovalRequest(original.requestId);
        proposalId = request?.decisions.find((d) => d.editedProposalId !== undefined)?.editedProposalId;
      } else {
        proposalId = (await this.ledger.findProposalByCall(run, rest))?.proposalId;
      }
      if (proposalId === undefined) continue;
      const found = await this.ledger.getProposalWithRequest(proposalId);
      if (found === undefined) continue;
      // A grant propose handed over for this very call (propose-and-authorize).
      const grant = this.grants.find((g) => g.key === key && g.grant.proposalId === proposalId)?.grant;
      this.refs[key] = { proposalId, callId: found.proposal.callId, requestId: found.request?.requestId, ...(grant === undefined ? {} : { grant }) };
    }
  }
}
