import { randomBytes, randomUUID } from 'node:crypto';
import type { AuditLog } from '@countersign/core';
import type { IntentConfig } from '@countersign/core/gate';
import type { IntentOption } from '@countersign/core/integration';
import { BANK_TOOL_DEFINITIONS, integrationGate } from '@countersign/core/testing';
import { linkedPair } from '@countersign/server/testing';
import { generateText, jsonSchema, type ModelMessage, streamText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { type CallIndex, memoryCallIndex } from './call-index.ts';
import { countersign } from './countersign.ts';
import type { GatePort } from '@countersign/core';
import { type DecisionRecorder, gateDecisions, serviceDecisions } from './record-decision.ts';

/**
 * The chat app the tests play: policy lets the user approve their own transfers (and a
 * `finance` approver too), reads run, deletes are denied, anything else is unclassified.
 */
export const CHAT_POLICY_YAML = `
version: 1
rules:
  - id: reads
    tool: read_balance
    verdict: allow
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

/** One way of reaching the gate: in process, or `@countersign/client` over the server app (linked in memory). */
export interface Wiring {
  name: string;
  port: GatePort;
  /** The user deciding their own call through the approval service (authenticated as `user:42`). */
  asUser: DecisionRecorder;
  /** Another approver, role `finance`. */
  asFinance: DecisionRecorder;
  /** An authenticated approver who is neither the call's principal nor in `finance`. */
  asStranger: DecisionRecorder;
  /** The `finance` approver approves with edits: the edited call is the one to run. */
  editAsFinance(requestId: string, editedArguments: unknown): Promise<void>;
  advanceClock(ms: number): void;
  /** The gate's audit log (both wirings: the linked server runs the same gate). */
  audit: AuditLog;
  close(): Promise<void>;
}

function makeGate(options: { intent?: IntentConfig } = {}) {
  return integrationGate({ policyYaml: CHAT_POLICY_YAML, definitions: BANK_TOOL_DEFINITIONS, framework: 'the AI SDK (authorize → execute → complete)', intent: options.intent });
}

/** In process; with `intent`, the gate runs its intent stage (`audit`: its audit log). */
export function inProcessWiring(options: { intent?: IntentConfig } = {}): Wiring {
  const { gate, clock, audit } = makeGate(options);
  return {
    audit,
    name: 'in-process gate (gate.port)',
    port: gate.port({ id: 'chat-app' }),
    asUser: gateDecisions(gate.approvals, { id: USER }),
    asFinance: gateDecisions(gate.approvals, { id: 'fiona', roles: ['finance'] }),
    asStranger: gateDecisions(gate.approvals, { id: 'user:43' }),
    async editAsFinance(requestId, editedArguments) {
      const decided = await gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId, decision: 'approve', editedArguments });
      if (!decided.ok) throw new Error(`edit refused: ${decided.reason}`);
    },
    advanceClock: (ms) => clock.advance(ms),
    close: async () => {},
  };
}

export function remoteWiring(): Wiring {
  const { gate, clock, audit } = makeGate();
  const secret = (who: string) => `${who}-${randomBytes(12).toString('hex')}`;
  const userToken = secret('user');
  const financeToken = secret('fiona');
  const strangerToken = secret('stranger');
  const pair = linkedPair({
    gate,
    auth: {
      agents: [{ name: 'chat-app', token: secret('agent') }],
      approvers: [
        { id: USER, roles: [], token: userToken },
        { id: 'fiona', roles: ['finance'], token: financeToken },
        { id: 'user:43', roles: [], token: strangerToken },
      ],
    },
    tuning: { pollIntervalMs: 10 },
    client: { retryDelayMs: 5 },
  });
  const fetchApp = async (input: string, init: RequestInit) => pair.app.fetch(new Request(input, init));
  const decider = (token: string) => serviceDecisions({ baseUrl: 'http://countersign.linked', headers: { authorization: `Bearer ${token}` }, fetch: fetchApp });
  return {
    audit,
    name: '@countersign/client over the server app (linkedPair)',
    port: pair.client,
    asUser: decider(userToken),
    asFinance: decider(financeToken),
    asStranger: decider(strangerToken),
    async editAsFinance(requestId, editedArguments) {
      const response = await fetchApp('http://countersign.linked/api/v1/decisions', {
        method: 'POST',
        headers: { authorization: `Bearer ${financeToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ requestId, decision: 'approve', editedArguments }),
      });
      if (!response.ok) throw new Error(`edit refused: ${response.status} ${await response.text()}`);
    },
    advanceClock: (ms) => clock.advance(ms),
    close: () => pair.close(),
  };
}

export const WIRINGS: Array<() => Wiring> = [inProcessWiring, remoteWiring];

/** What the app's tools did: the only proof of "executes nothing". */
export type Executions = Array<{ tool: string; args: unknown }>;

export function appTools(executions: Executions) {
  const make = (name: string) =>
    tool({
      description: descriptionOf(name),
      inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
      execute: async (args: Record<string, unknown>) => {
        executions.push({ tool: name, args });
        return { ok: true, tool: name, args };
      },
    });
  return { transfer: make('transfer'), read_balance: make('read_balance'), delete_repo: make('delete_repo'), shell: make('shell') };
}

export interface ScriptedCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/**
 * The scripted model: when the last prompt message is a user message it answers with
 * `calls`; after tool results (or approvals) it answers with text.
 */
export function scriptedModel(calls: ScriptedCall[]): MockLanguageModelV4 {
  const answer = (prompt: Array<{ role: string }>) => {
    if (prompt.at(-1)?.role !== 'user') return { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: 'stop' } };
    return {
      content: calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.toolCallId, toolName: c.toolName, input: JSON.stringify(c.input) })),
      finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    };
  };
  return new MockLanguageModelV4({
    doGenerate: async (options) => ({ ...answer(options.prompt), usage, warnings: [], response: { id: `resp-${randomUUID()}` } }),
    doStream: async (options) => {
      const { content, finishReason } = answer(options.prompt);
      const body = content.flatMap((part): LanguageModelV4StreamPart[] =>
        part.type === 'text'
          ? [
              { type: 'text-start', id: 't1' },
              { type: 'text-delta', id: 't1', delta: part.text },
              { type: 'text-end', id: 't1' },
            ]
          : [part],
      );
      const parts: LanguageModelV4StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: `resp-${randomUUID()}` },
        ...body,
        { type: 'finish', finishReason, usage },
      ];
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
}

export const userMessage = (text: string): ModelMessage => ({ role: 'user', content: text });

/** The chat app's server: one guarded request. A fresh guard per request, the call index shared. */
export interface ChatApp {
  wiring: Wiring;
  index: CallIndex;
  executions: Executions;
  runId: string;
  request(messages: ModelMessage[], calls: ScriptedCall[], options?: { stream?: boolean; instructions?: string }): Promise<ChatTurn>;
}

export interface ChatTurn {
  responseMessages: ModelMessage[];
  refusals: ReturnType<typeof countersign>['refusals'];
  content: Array<{ type: string; [key: string]: unknown }>;
}

export function chatApp(wiring: Wiring, appOptions: { intent?: IntentOption } = {}): ChatApp {
  const index = memoryCallIndex();
  const executions: Executions = [];
  const runId = `chat-run-${randomUUID()}`;
  return {
    wiring,
    index,
    executions,
    runId,
    async request(messages, calls, options = {}) {
      const cs = countersign({ port: wiring.port, context: { runId, sessionId: 'chat-session-1', principal: USER }, index, intent: appOptions.intent });
      const settings = {
        model: cs.model(scriptedModel(calls)),
        tools: cs.tools(appTools(executions)),
        toolApproval: cs.toolApproval,
        messages,
        ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
      };
      if (options.stream === true) {
        const result = streamText(settings);
        await result.consumeStream();
        const [responseMessages, content] = await Promise.all([result.responseMessages, result.content]);
        return { responseMessages, refusals: cs.refusals, content: content as ChatTurn['content'] };
      }
      const result = await generateText(settings);
      return { responseMessages: result.responseMessages, refusals: cs.refusals, content: result.content as ChatTurn['content'] };
    },
  };
}

/** The approval requests (SDK parts) in a turn's response messages. */
export function approvalRequests(messages: ModelMessage[]): Array<{ approvalId: string; toolCallId: string; reason?: string | undefined }> {
  return messages.flatMap((m) =>
    m.role === 'assistant' && typeof m.content !== 'string' ? m.content.filter((p) => p.type === 'tool-approval-request') : [],
  );
}

/** The tool-result outputs (including `execution-denied`) in a turn's response messages. */
export function toolOutputs(messages: ModelMessage[]): Array<{ toolCallId: string; output: { type: string; reason?: string; value?: unknown } }> {
  return messages.flatMap((m) => (m.role === 'tool' ? m.content.filter((p) => p.type === 'tool-result') : [])) as never;
}

/** The history a client resends: everything so far plus its approval answers. */
export function withApprovals(history: ModelMessage[], answers: Array<{ approvalId: string; approved: boolean }>): ModelMessage[] {
  return [...history, { role: 'tool', content: answers.map((a) => ({ type: 'tool-approval-response' as const, ...a })) }];
}

/**
 * The same chat app with the AI SDK's own approval mechanism only (no Countersign):
 * `toolApproval` asks the user for transfers and deletes, optionally with
 * `experimental_toolApprovalSecret`.
 */
export function sdkOnlyApp(options: { secret?: string } = {}) {
  const executions: Executions = [];
  return {
    executions,
    async request(messages: ModelMessage[], calls: ScriptedCall[]) {
      const result = await generateText({
        model: scriptedModel(calls),
        tools: appTools(executions),
        toolApproval: { transfer: 'user-approval', delete_repo: 'user-approval' },
        ...(options.secret === undefined ? {} : { experimental_toolApprovalSecret: options.secret }),
        messages,
      });
      return { responseMessages: result.responseMessages };
    },
  };
}

/** A copy of `history` with the tool call `toolCallId` changed (what a tampering client sends). */
export function tamperCall(history: ModelMessage[], toolCallId: string, change: { input?: unknown; toolName?: string }): ModelMessage[] {
  return history.map((message) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return message;
    return {
      ...message,
      content: message.content.map((part) => (part.type === 'tool-call' && part.toolCallId === toolCallId ? { ...part, ...change } : part)),
    } as ModelMessage;
  });
}
