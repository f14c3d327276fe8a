import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CanUseTool, type McpServerConfig, type Options, query, type SDKMessage, type SDKResultMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { linkedPair } from '@countersign/server/testing';
import { type GatePort, InProcessGatePort } from '@countersign/core/gate';
import { frameworkToolRegistry } from '@countersign/core/integration';
import { loadPolicy } from '@countersign/core';
import { makeGateFixture } from '@countersign/core/testing';
import { runtimeToolDefinitions } from './built-in-tools.ts';
import { type CountersignClaudeAgent, countersignClaudeAgent } from './claude-agent.ts';
import { type CountersignClaudeOptions, countersignHooks } from './hooks.ts';
import { type ScriptedMessagesServer, type ScriptedTurn, startScriptedMessagesServer } from './testing/scripted-messages-server.ts';

// The package's exports do not include its package.json: read it beside the entry point.
export const RUNTIME_VERSION = JSON.parse(readFileSync(new URL('package.json', import.meta.resolve('@anthropic-ai/claude-agent-sdk')), 'utf8')).version as string;

/** Echo commands and subagents run freely; any other shell command and every file write need an ops approver; no rule names Read. */
export const CODING_POLICY = `
version: 1
rules:
  - id: harmless-echo
    tool: Bash
    when:
      type: object
      properties: { command: { type: string, pattern: "^echo [a-z ]+$" } }
      required: [command]
    verdict: allow
  - id: shell
    tool: Bash
    verdict: approve
    approval: { approvers: { roles: [ops] }, ttlSeconds: 600 }
  - id: subagents
    tool: Agent
    verdict: allow
  - id: writes
    tool: Write
    verdict: approve
    approval: { approvers: { roles: [ops] }, ttlSeconds: 600 }
`;

/** The runtime's tools the gate lists by default (Edit is left out on purpose: a tool the gate does not even list). */
export const CODING_TOOLS = ['Bash', 'Write', 'Read', 'Agent'] as const;

export const OPS = { id: 'olga', roles: ['ops'] };

export type Wiring = 'in-process' | 'client';

/** What a session keeps for all its turns: the hooks' options, MCP servers, the SDK's own permission callback (what a forged approval would set). */
export interface SessionOptions {
  hooks?: Partial<CountersignClaudeOptions>;
  mcpServers?: Record<string, McpServerConfig>;
  canUseTool?: CanUseTool;
  /** Through `countersignClaudeAgent`: the relay-checking proxy in front of the scripted model. */
  relayCheck?: boolean;
}

/** What a one-query run may add: the session it resumes, the permission mode. */
export interface RunOptions extends SessionOptions {
  resume?: string;
  permissionMode?: 'default' | 'acceptEdits';
}

/** A refused call comes back to the model as an error tool_result: collects their texts. */
function collectDenials(message: SDKMessage, denials: string[]): void {
  if (message.type !== 'user' || !Array.isArray(message.message.content)) return;
  for (const block of message.message.content) {
    if (typeof block === 'object' && block !== null && 'is_error' in block && block.is_error === true) denials.push(JSON.stringify(block.content));
  }
}

/**
 * A gate (memory store), the port each wiring uses, a scripted model and a scratch
 * working directory. `setup` replaces the gate's policy and the tools it lists (default:
 * the shell, file and subagent policy above, and its tools).
 */
export async function claudeHarness(wiring: Wiring, setup: { policyYaml?: string; toolNames?: readonly string[] } = {}) {
  const fixture = makeGateFixture({
    policy: loadPolicy(setup.policyYaml ?? CODING_POLICY, 'yaml'),
    tools: frameworkToolRegistry(runtimeToolDefinitions(setup.toolNames ?? CODING_TOOLS, RUNTIME_VERSION), 'the Claude Agent SDK runtime'),
  });
  const pair = wiring === 'client' ? linkedPair({ gate: fixture.gate }) : undefined;
  const port: GatePort = pair?.client ?? new InProcessGatePort(fixture.gate);
  const model: ScriptedMessagesServer = await startScriptedMessagesServer();
  const dir = mkdtempSync(join(tmpdir(), 'countersign-claude-'));
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  mkdirSync(home);
  mkdirSync(work);
  const sessions = new Set<LiveSession>();

  /** The guards with the relay check that runs and sessions started; closed with the harness. */
  const agents: CountersignClaudeAgent[] = [];

  /**
   * The hooks and environment of one runtime process whose model is `modelUrl`: the hooks
   * alone, or (`relayCheck`) `countersignClaudeAgent`, whose proxy stands between the
   * runtime and that model.
   */
  async function wire(modelUrl: string, extra: SessionOptions): Promise<{ hooks: NonNullable<Options['hooks']>; env: Record<string, string>; guard?: CountersignClaudeAgent }> {
    const env = { PATH: process.env.PATH ?? '', HOME: home, ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: 'sk-scripted', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    if (extra.relayCheck !== true) return { hooks: countersignHooks({ port, principal: 'user:42', ...extra.hooks }).hooks, env };
    const guard = await countersignClaudeAgent({ port, principal: 'user:42', ...extra.hooks, env });
    agents.push(guard);
    return { hooks: guard.hooks, env: guard.env, guard };
  }

  /** The query options every run shares: the scripted model (or the proxy before it), a scratch home, no settings from this machine. */
  const baseOptions = (wired: Awaited<ReturnType<typeof wire>>, extra: RunOptions): Options => ({
    cwd: work,
    model: 'claude-scripted',
    settingSources: [],
    permissionMode: extra.permissionMode ?? 'default',
    ...(extra.mcpServers === undefined ? {} : { mcpServers: extra.mcpServers }),
    ...(extra.canUseTool === undefined ? {} : { canUseTool: extra.canUseTool }),
    env: wired.env,
    hooks: wired.hooks,
  });

  /** One `query` of the real runtime (one process): the model makes `turns`, the hooks guard every call. */
  async function run(turns: ScriptedTurn[], options: RunOptions = {}) {
    model.script(...turns);
    const wired = await wire(model.url, options);
    let sessionId = '';
    const denials: string[] = [];
    // A model request the proxy refused ends the query with an error: the runtime's turn ended, nothing more runs.
    let refusedRequest: string | undefined;
    try {
      for await (const message of query({
        prompt: 'do the task',
        options: {
          ...baseOptions(wired, options),
          maxTurns: turns.length + 2,
          ...(options.resume === undefined ? {} : { resume: options.resume }),
        },
      })) {
        if ('session_id' in message && typeof message.session_id === 'string') sessionId = message.session_id;
        collectDenials(message, denials);
      }
    } catch (error) {
      refusedRequest = refusedByProxy(error, wired.guard);
    }
    return { sessionId, denials, guard: wired.guard, refusedRequest };
  }

  /**
   * A live session: one runtime process for all its turns (the SDK's streaming-input
   * mode). Each `turn` is a new user message in the same session, which is what a resumed
   * session is to the hooks (same session id, so the same Countersign run), without the
   * runtime's start-up of about 2 s per query. The process starts at once, so a session
   * opened before it is needed is ready by then. Its own scripted model, so sessions
   * running side by side never take each other's turns.
   */
  async function session(options: SessionOptions = {}): Promise<LiveSession> {
    const own = await startScriptedMessagesServer();
    const wired = await wire(own.url, options);
    const input = userMessages();
    const live = query({ prompt: input.stream, options: baseOptions(wired, options) });
    const output = live[Symbol.asyncIterator]();
    let sessionId = '';
    let mode: 'default' | 'acceptEdits' = 'default';
    /** The runtime's messages up to the result of the message just sent: the refusals it relayed, the session id. */
    async function untilResult() {
      const denials: string[] = [];
      for (;;) {
        const next = await output.next();
        if (next.done === true) throw new Error('the Claude runtime ended the session before the turn finished');
        const message = next.value;
        if ('session_id' in message && typeof message.session_id === 'string') sessionId = message.session_id;
        collectDenials(message, denials);
        if (message.type === 'result') return { sessionId, denials, refusedRequest: message.is_error ? refusedByProxy(new Error(resultText(message)), wired.guard) : undefined };
      }
    }
    const handle: LiveSession = {
      model: own,
      guard: wired.guard,
      get sessionId() {
        return sessionId;
      },
      async turn(turns, turnOptions = {}) {
        const wanted = turnOptions.permissionMode ?? 'default';
        if (wanted !== mode) {
          await live.setPermissionMode(wanted);
          mode = wanted;
        }
        own.script(...turns);
        input.send('do the task');
        return untilResult();
      },
      async clear() {
        // A turn the runtime ended early (a model request the proxy refused) leaves scripted answers that belong to the old session.
        own.dropUnused();
        const before = sessionId;
        input.send('/clear');
        await untilResult();
        if (sessionId === before) throw new Error('/clear did not start a new SDK session');
        return sessionId;
      },
      async close() {
        sessions.delete(handle);
        input.end();
        // The runtime ends on its own once its input ends; its messages end with its process.
        // Closing at once left it writing its logs into the scratch home after the harness
        // had removed it (a folder left in the temporary directory per session).
        await untilEnded(output, 5_000);
        live.close();
        await own.close();
      },
    };
    sessions.add(handle);
    return handle;
  }

  return {
    fixture,
    port,
    model,
    work,
    home,
    run,
    session,
    async close() {
      for (const live of [...sessions]) await live.close();
      for (const guard of agents) await guard.close();
      await model.close();
      await pair?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A session of the real runtime that stays up between turns (see `session`). */
export interface LiveSession {
  /** The scripted model of this session (its turns, the tool results it was sent). */
  readonly model: ScriptedMessagesServer;
  /** With `relayCheck`: the guard whose proxy is this session's `ANTHROPIC_BASE_URL`. */
  readonly guard: CountersignClaudeAgent | undefined;
  /** The SDK session id, once the first turn has begun. */
  readonly sessionId: string;
  /** One user message: the model makes `turns`; resolves at the runtime's result message. */
  turn(turns: ScriptedTurn[], options?: { permissionMode?: 'default' | 'acceptEdits' }): Promise<{ sessionId: string; denials: string[]; refusedRequest: string | undefined }>;
  /**
   * `/clear`: the same runtime process starts a new SDK session (new id, so a new
   * Countersign run; an empty conversation), as a fresh `query` would without its
   * start-up. Resolves to the new session id.
   */
  clear(): Promise<string>;
  close(): Promise<void>;
}

/**
 * A model request the relay-checking proxy refused (a 4xx answer, which the runtime
 * reports as `API Error: 4…`): its text. Anything else is a failure of the test's setup.
 */
/** Reads `output` to its end (the runtime's process has exited), or gives up after `ms`. */
async function untilEnded(output: AsyncIterator<SDKMessage>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), ms);
  });
  try {
    for (;;) {
      const next = await Promise.race([output.next(), timedOut]);
      if (next === 'timed out' || next.done === true) return;
    }
  } catch {
    // A session that ends with an error has ended all the same.
  } finally {
    clearTimeout(timer);
  }
}

function refusedByProxy(error: unknown, guard: CountersignClaudeAgent | undefined): string {
  const message = error instanceof Error ? error.message : String(error);
  if (guard === undefined || !message.includes('API Error: 4')) throw error;
  return message;
}

/** What a result message says: its result text, or its errors. */
function resultText(message: SDKResultMessage): string {
  return message.subtype === 'success' ? message.result : message.errors.join('; ');
}

/** The user messages of a streaming-input query, sent one at a time. */
function userMessages() {
  const queued: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  async function* stream(): AsyncGenerator<SDKUserMessage> {
    for (;;) {
      const next = queued.shift();
      if (next !== undefined) yield next;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  const poke = () => {
    wake?.();
    wake = undefined;
  };
  return {
    stream: stream(),
    send(text: string) {
      queued.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' });
      poke();
    },
    end() {
      ended = true;
      poke();
    },
  };
}
