import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CanUseTool, type McpServerConfig, query } from '@anthropic-ai/claude-agent-sdk';
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
const POLICY = `
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

export const OPS = { id: 'olga', roles: ['ops'] };

export type Wiring = 'in-process' | 'client';

/** What a run may add to the query: MCP servers, and the SDK's own permission callback (what a forged approval would set). */
export interface RunOptions {
  resume?: string;
  hooks?: Partial<CountersignClaudeOptions>;
  permissionMode?: 'default' | 'acceptEdits';
  mcpServers?: Record<string, McpServerConfig>;
  canUseTool?: CanUseTool;
  /** Through `countersignClaudeAgent`: the relay-checking proxy in front of the scripted model. */
  relayCheck?: boolean;
}

/**
 * A gate (memory store), the port each wiring uses, a scripted model and a scratch
 * working directory. `setup` replaces the gate's policy and the tools it lists (default:
 * the shell, file and subagent policy above).
 */
export async function claudeHarness(wiring: Wiring, setup: { policyYaml?: string; toolNames?: readonly string[] } = {}) {
  const fixture = makeGateFixture({
    policy: loadPolicy(setup.policyYaml ?? POLICY, 'yaml'),
    tools: frameworkToolRegistry(runtimeToolDefinitions(setup.toolNames ?? ['Bash', 'Write', 'Read', 'Agent'], RUNTIME_VERSION), 'the Claude Agent SDK runtime'),
  });
  const pair = wiring === 'client' ? linkedPair({ gate: fixture.gate }) : undefined;
  const port: GatePort = pair?.client ?? new InProcessGatePort(fixture.gate);
  const model: ScriptedMessagesServer = await startScriptedMessagesServer();
  const dir = mkdtempSync(join(tmpdir(), 'countersign-claude-'));
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  mkdirSync(home);
  mkdirSync(work);

  const env = { PATH: process.env.PATH ?? '', HOME: home, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-scripted', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  /** The guards with the relay check the runs started; closed with the harness (a kit attack relays through the last one). */
  const agents: CountersignClaudeAgent[] = [];

  /** One `query` of the real runtime: the model makes `turns`, the hooks guard every call. */
  async function run(turns: ScriptedTurn[], options: RunOptions = {}) {
    model.script(...turns);
    const guard = options.relayCheck === true ? await countersignClaudeAgent({ port, principal: 'user:42', ...options.hooks, env }) : undefined;
    if (guard !== undefined) agents.push(guard);
    const { hooks } = guard ?? countersignHooks({ port, principal: 'user:42', ...options.hooks });
    let sessionId = '';
    const denials: string[] = [];
    // A model request the proxy refused ends the query with an error result: the runtime's turn ended, nothing more runs.
    let refusedRequest: string | undefined;
    try {
      for await (const message of query({
        prompt: 'do the task',
        options: {
          cwd: work,
          model: 'claude-scripted',
          maxTurns: turns.length + 2,
          settingSources: [],
          permissionMode: options.permissionMode ?? 'default',
          ...(options.resume === undefined ? {} : { resume: options.resume }),
          ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
          ...(options.canUseTool === undefined ? {} : { canUseTool: options.canUseTool }),
          env: guard?.env ?? env,
          hooks,
        },
      })) {
        if ('session_id' in message && typeof message.session_id === 'string') sessionId = message.session_id;
        if (message.type === 'user' && Array.isArray(message.message.content)) {
          for (const block of message.message.content) {
            if (typeof block === 'object' && block !== null && 'is_error' in block && block.is_error === true) denials.push(JSON.stringify(block.content));
          }
        }
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (guard === undefined || !message.includes('API Error: 4')) throw error;
      refusedRequest = message;
    }
    return { sessionId, denials, guard, refusedRequest };
  }

  return {
    fixture,
    port,
    model,
    work,
    home,
    run,
    async close() {
      for (const guard of agents) await guard.close();
      await model.close();
      await pair?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
