import { randomBytes, randomUUID } from 'node:crypto';
import type { AuditLog, GatePort } from '@countersign/core';
import type { IntentConfig } from '@countersign/core/gate';
import type { IntentOption } from '@countersign/core/integration';
import { BANK_TOOL_DEFINITIONS, integrationGate } from '@countersign/core/testing';
import { linkedPair } from '@countersign/server/testing';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { type BaseCheckpointSaver, Command, MemorySaver } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware, type InterruptOnConfig } from 'langchain';
import { countersignInterrupts } from './approval-interrupt.ts';
import { countersignMiddleware } from './middleware.ts';
import type { CountersignDenial } from './refusal.ts';

/**
 * The agent the tests play: policy lets the user approve their own transfers (and a
 * `finance` approver too) unless the amount is 100000 or more (denied), reads run,
 * deletes are denied, `shell` is unclassified.
 */
export const POLICY_YAML = `
version: 1
rules:
  - id: reads
    tool: read_balance
    verdict: allow
  - id: huge-transfers
    tool: transfer
    when: { type: object, properties: { amount: { type: number, minimum: 100000 } }, required: [amount] }
    verdict: deny
  - id: transfers
    tool: transfer
    verdict: approve
    approval:
      approvers: { principalSelf: true, roles: [finance] }
      ttlSeconds: 600
  - id: no-deletes
    tool: delete_repo
    verdict: deny
`;

export const USER = 'user:42';
const descriptionOf = (name: string) => BANK_TOOL_DEFINITIONS.find((definition) => definition.name === name)?.description ?? '';

export type Decide = (requestId: string, decision: 'approve' | 'deny', editedArguments?: unknown) => Promise<{ ok: boolean; reason?: string }>;

/** One way of reaching the gate: in process, or `@countersign/client` over the server app (linked in memory). */
export interface Wiring {
  name: string;
  port: GatePort;
  /** The user deciding in Countersign (authenticated as `user:42`). */
  asUser: Decide;
  /** Another approver, role `finance`. */
  asFinance: Decide;
  /** The gate's audit log (both wirings: the linked server runs the same gate). */
  audit: AuditLog;
  close(): Promise<void>;
}

function makeGate(options: { intent?: IntentConfig } = {}) {
  return integrationGate({ policyYaml: POLICY_YAML, definitions: BANK_TOOL_DEFINITIONS, framework: 'LangChain (authorize → tool → complete)', intent: options.intent });
}

/** In process; with `intent`, the gate runs its intent stage (`audit`: its audit log). */
export function inProcessWiring(options: { intent?: IntentConfig } = {}): Wiring {
  const { gate, audit } = makeGate(options);
  const decider =
    (approver: { id: string; roles?: string[] }): Decide =>
    async (requestId, decision, editedArguments) => {
      const decided = await gate.approvals.decide(approver, { requestId, decision, ...(editedArguments === undefined ? {} : { editedArguments }) });
      return decided.ok ? { ok: true } : { ok: false, reason: decided.reason };
    };
  return {
    audit,
    name: 'in-process gate (gate.port)',
    port: gate.port({ id: 'lc-app' }),
    asUser: decider({ id: USER }),
    asFinance: decider({ id: 'fiona', roles: ['finance'] }),
    close: async () => {},
  };
}

export function remoteWiring(): Wiring {
  const { gate, audit } = makeGate();
  const secret = (who: string) => `${who}-${randomBytes(12).toString('hex')}`;
  const userToken = secret('user');
  const financeToken = secret('fiona');
  const pair = linkedPair({
    gate,
    auth: {
      agents: [{ name: 'lc-app', token: secret('agent') }],
      approvers: [
        { id: USER, roles: [], token: userToken },
        { id: 'fiona', roles: ['finance'], token: financeToken },
      ],
    },
    tuning: { pollIntervalMs: 10 },
    client: { retryDelayMs: 5 },
  });
  const decider =
    (token: string): Decide =>
    async (requestId, decision, editedArguments) => {
      const body = { requestId, decision, ...(editedArguments === undefined ? {} : { editedArguments }) };
      const response = await pair.app.fetch(
        new Request('http://countersign.linked/api/v1/decisions', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      if (response.ok) return { ok: true };
      const error = (await response.json()) as { error?: { code?: string } };
      return { ok: false, reason: error.error?.code ?? `http_${response.status}` };
    };
  return {
    audit,
    name: '@countersign/client over the server app (linkedPair)',
    port: pair.client,
    asUser: decider(userToken),
    asFinance: decider(financeToken),
    close: () => pair.close(),
  };
}

export const WIRINGS: Array<() => Wiring> = [inProcessWiring, remoteWiring];

/** What the app's tools did: the only proof of "executes nothing". */
export type Executions = Array<{ tool: string; args: unknown }>;

export function appTools(executions: Executions) {
  const make = (name: string) =>
    tool(
      async (args: Record<string, unknown>) => {
        executions.push({ tool: name, args });
        return JSON.stringify({ ok: true, tool: name, args });
      },
      { name, description: descriptionOf(name), schema: { type: 'object', properties: {}, additionalProperties: true } },
    );
  return [make('transfer'), make('read_balance'), make('delete_repo'), make('shell')];
}

export interface ScriptedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** LangChain's fake chat model: answers a human message with `calls` (an AI message with its own id), anything else with text. */
export function scriptedModel(calls: ScriptedCall[]) {
  const model = fakeModel();
  const answer = (messages: BaseMessage[]) =>
    messages.at(-1)?.type === 'human'
      ? new AIMessage({ id: `resp-${randomUUID()}`, content: '', tool_calls: calls.map((c) => ({ ...c, type: 'tool_call' as const })) })
      : new AIMessage({ id: `resp-${randomUUID()}`, content: 'done' });
  for (let i = 0; i < 12; i++) model.respond(answer);
  return model;
}

export const ask = (text: string) => ({ messages: [new HumanMessage(text)] });

/** The agent with the Countersign middleware, on a thread of its own. */
export function guardedAgent(
  wiring: Wiring,
  calls: ScriptedCall[],
  options: { checkpointer?: BaseCheckpointSaver; threadId?: string; waitMs?: number; version?: 'v1' | 'v2'; intent?: IntentOption; systemPrompt?: string } = {},
) {
  const executions: Executions = [];
  const refusals: CountersignDenial[] = [];
  const threadId = options.threadId ?? `thread-${randomUUID()}`;
  const runId = `lc-run-${threadId}`;
  const model = scriptedModel(calls);
  const agent = createAgent({
    model,
    tools: appTools(executions),
    middleware: [
      countersignMiddleware({
        port: wiring.port,
        // The app server's own state: the thread it invokes, the user it authenticated.
        context: (runtime) => ({ runId: `lc-run-${runtime.configurable?.thread_id}`, sessionId: 'lc-session-1', principal: USER }),
        onRefusal: (denial) => refusals.push(denial),
        waitMs: options.waitMs,
        intent: options.intent,
      }),
    ],
    ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
    checkpointer: options.checkpointer ?? new MemorySaver(),
    ...(options.version === undefined ? {} : { version: options.version }),
  });
  const config = { configurable: { thread_id: threadId } };
  return {
    agent,
    executions,
    refusals,
    threadId,
    runId,
    config,
    /** How many times the fake model was called. */
    modelCalls: () => model.callCount,
    start: (text = 'go') => agent.invoke(ask(text), config),
    /** The id of the thread's newest checkpoint (to resume from it again later: a fork of the thread). */
    checkpointId: async () => ((await agent.getState(config)) as unknown as { config: { configurable?: { checkpoint_id?: string } } }).config.configurable?.checkpoint_id,
    resume: (value: unknown, extra: Record<string, unknown> = {}) => agent.invoke(new Command({ resume: value }), { configurable: { thread_id: threadId, ...extra } }),
  };
}

/** The same agent with LangChain's own `humanInTheLoopMiddleware` (no Countersign). */
export function hitlAgent(calls: ScriptedCall[], interruptOn: Record<string, boolean | InterruptOnConfig>) {
  const executions: Executions = [];
  const threadId = `thread-${randomUUID()}`;
  const agent = createAgent({
    model: scriptedModel(calls),
    tools: appTools(executions),
    // LangChain's own middleware types do not compile under `exactOptionalPropertyTypes`; the runtime object is as is.
    middleware: [(humanInTheLoopMiddleware as (options: unknown) => unknown)({ interruptOn }) as ReturnType<typeof countersignMiddleware>],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: threadId } };
  return {
    agent,
    executions,
    config,
    start: (text = 'go') => agent.invoke(ask(text), config),
    /** The id of the thread's newest checkpoint (to resume from it again later: a fork of the thread). */
    checkpointId: async () => ((await agent.getState(config)) as unknown as { config: { configurable?: { checkpoint_id?: string } } }).config.configurable?.checkpoint_id,
    resume: (value: unknown, extra: Record<string, unknown> = {}) => agent.invoke(new Command({ resume: value }), { configurable: { thread_id: threadId, ...extra } }),
  };
}

/** The Countersign approval requests of an interrupted result. */
export function pendingRequests(result: { __interrupt__?: unknown }) {
  return countersignInterrupts(result.__interrupt__ as Array<{ value?: unknown }> | undefined);
}

/** The tool messages of a result, by call id. */
export function toolMessages(result: { messages: BaseMessage[] }): ToolMessage[] {
  return result.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
}
