import { randomBytes, randomUUID } from 'node:crypto';
import type { AuditLog, GatePort } from '@countersign/core';
import type { IntentConfig } from '@countersign/core/gate';
import type { IntentOption } from '@countersign/core/integration';
import { integrationGate } from '@countersign/core/testing';
import { linkedPair } from '@countersign/server/testing';
import { Agent, type AgentInputItem, type MCPServer, Runner, RunState, type RunToolApprovalItem, tool, Usage } from '@openai/agents';
import { functionCall, modelResponder, assistantMessage, ScriptedModel } from '@openai/agents/testing';
import { z } from 'zod';
import { type CallIndex, memoryCallIndex } from './call-index.ts';
import { countersign } from './countersign.ts';
import type { ApprovalMode } from './guard.ts';
import { refusalOf } from './refusal.ts';
import { handoffDefinitions, toolDefinitions } from './tool-definitions.ts';
import type { AnyAgent, AnyRunResult } from './sdk-types.ts';

/**
 * The file agent the tests play: reading a file needs an `ops` approver, listing a
 * directory is allowed, deleting is denied, `shell` is unclassified.
 */
export const FILE_POLICY_YAML = `
version: 1
rules:
  - id: listing
    tool: list_dir
    verdict: allow
  - id: reads
    tool: read_file
    verdict: approve
    approval:
      approvers: { roles: [ops] }
      ttlSeconds: 600
  - id: no-deletes
    tool: delete_file
    verdict: deny
  - id: handoff-to-billing
    tool: transfer_to_billing
    verdict: allow
  - id: ask-the-file-agent
    tool: ask_files
    verdict: allow
`;

/** The handoff the tests' triage agent offers (its definition is registered with the gate). */
export const BILLING_HANDOFF = { toolName: 'transfer_to_billing', toolDescription: 'Hand off to billing', inputJsonSchema: { type: 'object', properties: {}, required: [], additionalProperties: false } };

/** The file agent used as a tool (`agent.asTool(FILES_AGENT_TOOL)`) by the tests' triage agent (its definition is registered with the gate). */
export const FILES_AGENT_TOOL = { toolName: 'ask_files', toolDescription: 'Ask the file agent' };

export const USER = 'user:42';

/** What the app's tools did: the only proof of "executes nothing". */
export type Executions = Array<{ tool: string; args: unknown }>;

/** The agent's tools; every one records what it ran with. */
export function fileTools(executions: Executions) {
  const make = (name: string, description: string, needsApproval = false) =>
    tool({
      name,
      description,
      parameters: z.object({ path: z.string() }),
      needsApproval,
      execute: async (args) => {
        executions.push({ tool: name, args });
        return { ok: true, tool: name, path: args.path };
      },
    });
  return [
    make('read_file', 'Read a file', true),
    make('list_dir', 'List a directory'),
    make('delete_file', 'Delete a file', true),
    make('shell', 'Run a command', true),
  ];
}

export type Decide = (requestId: string, decision: 'approve' | 'deny') => Promise<void>;

/** One way of reaching the gate: in process, or `@countersign/client` over the server app (linked in memory). */
export interface Wiring {
  name: string;
  port: GatePort;
  /** An `ops` approver deciding in Countersign. */
  asOps: Decide;
  /** The `ops` approver approves with edits: the edited call is the one to run. */
  editAsOps(requestId: string, editedArguments: unknown): Promise<void>;
  advanceClock(ms: number): void;
  /** The gate's audit log (both wirings: the linked server runs the same gate). */
  audit: AuditLog;
  close(): Promise<void>;
}

function makeGate(options: { intent?: IntentConfig } = {}) {
  const definitions = [...toolDefinitions([...fileTools([]), new Agent({ name: 'files' }).asTool(FILES_AGENT_TOOL)]), ...handoffDefinitions([BILLING_HANDOFF])];
  return integrationGate({ policyYaml: FILE_POLICY_YAML, definitions, framework: 'the OpenAI Agents SDK (authorize → invoke → complete)', intent: options.intent });
}

/** In process; with `intent`, the gate runs its intent stage (`audit`: its audit log). */
export function inProcessWiring(options: { intent?: IntentConfig } = {}): Wiring {
  const { gate, clock, audit } = makeGate(options);
  return {
    audit,
    name: 'in-process gate (gate.port)',
    port: gate.port({ id: 'file-agent' }),
    asOps: async (requestId, decision) => {
      const decided = await gate.approvals.decide({ id: 'olga', roles: ['ops'] }, { requestId, decision });
      if (!decided.ok) throw new Error(`decision failed: ${decided.reason}`);
    },
    async editAsOps(requestId, editedArguments) {
      const decided = await gate.approvals.decide({ id: 'olga', roles: ['ops'] }, { requestId, decision: 'approve', editedArguments });
      if (!decided.ok) throw new Error(`edit failed: ${decided.reason}`);
    },
    advanceClock: (ms) => clock.advance(ms),
    close: async () => {},
  };
}

export function remoteWiring(): Wiring {
  const { gate, clock, audit } = makeGate();
  const opsToken = `olga-${randomBytes(12).toString('hex')}`;
  const pair = linkedPair({
    gate,
    auth: { agents: [{ name: 'file-agent', token: `agent-${randomBytes(12).toString('hex')}` }], approvers: [{ id: 'olga', roles: ['ops'], token: opsToken }] },
    tuning: { pollIntervalMs: 10 },
    client: { retryDelayMs: 5 },
  });
  return {
    audit,
    name: '@countersign/client over the server app (linkedPair)',
    port: pair.client,
    asOps: async (requestId, decision) => {
      // The approver's decision goes through the approval service, authenticated by their own token.
      const response = await pair.app.fetch(
        new Request('http://countersign.linked/api/v1/decisions', {
          method: 'POST',
          headers: { authorization: `Bearer ${opsToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ requestId, decision }),
        }),
      );
      if (!response.ok) throw new Error(`decision failed: ${response.status} ${await response.text()}`);
    },
    async editAsOps(requestId, editedArguments) {
      const response = await pair.app.fetch(
        new Request('http://countersign.linked/api/v1/decisions', {
          method: 'POST',
          headers: { authorization: `Bearer ${opsToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ requestId, decision: 'approve', editedArguments }),
        }),
      );
      if (!response.ok) throw new Error(`edit failed: ${response.status} ${await response.text()}`);
    },
    advanceClock: (ms) => clock.advance(ms),
    close: () => pair.close(),
  };
}

export const WIRINGS: Array<() => Wiring> = [inProcessWiring, remoteWiring];

export interface ScriptedCall {
  callId: string;
  name: string;
  /** An object, or the JSON text exactly as the model wrote it. */
  args: Record<string, unknown> | string;
}

/**
 * The SDK's own `ScriptedModel`: answers a user message with `calls` (one response, with
 * a response id), anything after tool results with "done".
 */
export function scriptedModel(calls: readonly ScriptedCall[]): ScriptedModel {
  const respond = modelResponder(({ request }) => {
    const last = Array.isArray(request.input) ? (request.input.at(-1) as { type?: string; role?: string } | undefined) : { role: 'user' };
    const fromUser = last?.role === 'user';
    return {
      usage: new Usage(),
      responseId: `resp_${randomUUID()}`,
      output: fromUser ? calls.map((c) => functionCall(c.name, c.args, { callId: c.callId })) : [assistantMessage('done')],
    };
  });
  return new ScriptedModel(Array.from({ length: 20 }, () => respond));
}

export const runner = new Runner({ tracingDisabled: true });

/** The agent app: each run or resumption builds its agent with a fresh guard; the call index is the app's, shared. */
export interface AgentApp {
  wiring: Wiring;
  index: CallIndex;
  executions: Executions;
  runId: string;
  /** A new run: the model answers `input` with `calls`. */
  start(input: string, calls: readonly ScriptedCall[], options?: { stream?: boolean; approval?: ApprovalMode }): Promise<Turn>;
  /**
   * Resumes a serialized `RunState` (what the app stored; maybe tampered). With
   * `applyDecisions` the app first carries Countersign's decisions into the state.
   */
  resume(serialized: string, options?: { applyDecisions?: boolean; emptyIndex?: boolean; runId?: string }): Promise<Turn>;
  /** A new run from a history the app kept (maybe tampered): relay checks. */
  continueFrom(history: AgentInputItem[]): Promise<Turn>;
  /** The app's agent (to read a saved state with `RunState.fromString`). */
  agent(): AnyAgent;
}

export interface Turn {
  result: Pick<AnyRunResult, 'interruptions' | 'state' | 'newItems' | 'finalOutput'>;
  cs: ReturnType<typeof countersign>;
  /** The guarded agent of this run (to resume with the same guard). */
  agent: AnyAgent;
  /** The request ids behind the interruptions, by call id. */
  requests: Record<string, string | undefined>;
}

export function agentApp(wiring: Wiring, appOptions: { intent?: IntentOption; instructions?: string } = {}): AgentApp {
  const index = memoryCallIndex();
  const executions: Executions = [];
  const runId = `agents-run-${randomUUID()}`;
  const build = (calls: readonly ScriptedCall[], approval?: ApprovalMode, callIndex: CallIndex = index, run = runId) => {
    const cs = countersign({ port: wiring.port, context: { runId: run, sessionId: 'agents-session-1', principal: USER }, index: callIndex, approval, intent: appOptions.intent });
    const agent = new Agent({
      name: 'file-agent',
      model: cs.model(scriptedModel(calls)),
      tools: cs.tools(fileTools(executions)),
      ...(appOptions.instructions === undefined ? {} : { instructions: appOptions.instructions }),
    });
    return { cs, agent };
  };
  const turn = async (cs: Turn['cs'], agent: AnyAgent, result: Turn['result']): Promise<Turn> => {
    const approvals = await cs.approvals(result.interruptions);
    return { result, cs, agent, requests: Object.fromEntries(approvals.map((a) => [a.callId, a.requestId])) };
  };
  return {
    wiring,
    index,
    executions,
    runId,
    async start(input, calls, options = {}) {
      const { cs, agent } = build(calls, options.approval);
      if (options.stream !== true) return turn(cs, agent, await runner.run(agent, input));
      const streamed = await runner.run(agent, input, { stream: true });
      await streamed.completed;
      return turn(cs, agent, streamed);
    },
    async resume(serialized, options = {}) {
      const { cs, agent } = build([], undefined, options.emptyIndex === true ? memoryCallIndex() : index, options.runId ?? runId);
      const state = await RunState.fromString(agent, serialized);
      if (options.applyDecisions === true) await cs.applyDecisions(state);
      return turn(cs, agent, await runner.run(agent, state));
    },
    agent: () => build([]).agent,
    async continueFrom(history) {
      const { cs, agent } = build([]);
      return turn(cs, agent, await runner.run(agent, history));
    },
  };
}

/** The same agent with the SDK's own approval mechanism only (no Countersign). */
export function sdkOnlyApp(calls: readonly ScriptedCall[]) {
  const executions: Executions = [];
  const agent = new Agent({ name: 'file-agent', model: scriptedModel(calls), tools: fileTools(executions) });
  return {
    executions,
    agent,
    start: (input: string) => runner.run(agent, input),
    resume: async (serialized: string) => runner.run(agent, await RunState.fromString(agent, serialized)),
  };
}

/** Approves interruptions in the SDK's own state (what an app does — or what an attacker writes into a saved state). */
export async function approvedInSdk(agent: AnyAgent, serialized: string, callIds: readonly string[]): Promise<string> {
  const state = await RunState.fromString(agent, serialized);
  for (const item of state.getInterruptions() as RunToolApprovalItem[]) {
    if (item.rawItem.type === 'function_call' && callIds.includes(item.rawItem.callId)) state.approve(item);
  }
  return state.toString();
}

/** The tool outputs of a run, with their typed Countersign refusal when they are one. */
export function toolOutputs(result: Pick<AnyRunResult, 'newItems'>): Array<{ callId: string; output: unknown; refusal: ReturnType<typeof refusalOf> }> {
  return result.newItems.flatMap((item) => {
    if (item.type !== 'tool_call_output_item' || item.rawItem.type !== 'function_call_result') return [];
    return [{ callId: item.rawItem.callId, output: item.output, refusal: refusalOf(item.output) }];
  });
}

/**
 * Replaces a path everywhere in a serialized RunState (an attacker holding the saved
 * string): in the function call's arguments and in the SDK's own approval fingerprint.
 */
export function editPath(serialized: string, from: string, to: string): string {
  return serialized.replaceAll(`\\"${from}\\"`, `\\"${to}\\"`);
}

/**
 * Swaps the call ids of two function calls in a serialized RunState, leaving the SDK's
 * approvals, keyed by call id, as they are: the approval of `a` now points at the call
 * that was `b`. The SDK's invocation fingerprint of `a` (plain JSON in the same string)
 * is rewritten to `b`'s path so that the SDK's own consistency check passes.
 */
export function swapCallIds(serialized: string, a: { callId: string; path: string }, b: { callId: string; path: string }): string {
  const swap = (value: unknown, parentKey?: string): unknown => {
    if (Array.isArray(value)) return value.map((inner) => swap(inner));
    if (parentKey === a.callId && typeof value === 'string') return value.replaceAll(`"${a.path}"`, `"${b.path}"`);
    if (typeof value !== 'object' || value === null) return value;
    const object = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, swap(inner, key)])) as Record<string, unknown>;
    if (object.type === 'function_call' || object.type === 'function_call_result') {
      for (const key of ['callId', 'id']) {
        if (object[key] === a.callId) object[key] = b.callId;
        else if (object[key] === b.callId) object[key] = a.callId;
      }
    }
    return object;
  };
  return JSON.stringify(swap(JSON.parse(serialized)));
}

/** An MCP server (what the runner builds tools from at run time) whose `move_money` tool records into `executions` if it ever runs. */
export function bankServer(executions: Array<{ tool: string; args: unknown }>): MCPServer {
  return {
    name: 'bank',
    cacheToolsList: false,
    connect: async () => {},
    close: async () => {},
    invalidateToolsCache: async () => {},
    listTools: async () => [{ name: 'move_money', description: 'Move money', inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: [], additionalProperties: false } }],
    callTool: async (name, args) => {
      executions.push({ tool: name, args });
      return [{ type: 'text', text: 'moved' }];
    },
  } as MCPServer;
}
