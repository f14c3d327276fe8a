import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { linkedPair } from '@countersign/server/testing';
import { type GatePort, InProcessGatePort } from '@countersign/core/gate';
import { frameworkToolRegistry } from '@countersign/core/integration';
import { loadPolicy } from '@countersign/core';
import { makeGateFixture } from '@countersign/core/testing';
import { runtimeToolDefinitions } from './built-in-tools.ts';
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

/** A gate (memory store), the port each wiring uses, a scripted model and a scratch working directory. */
export async function claudeHarness(wiring: Wiring) {
  const fixture = makeGateFixture({
    policy: loadPolicy(POLICY, 'yaml'),
    tools: frameworkToolRegistry(runtimeToolDefinitions(['Bash', 'Write', 'Read', 'Agent'], RUNTIME_VERSION), 'the Claude Agent SDK runtime'),
  });
  const pair = wiring === 'client' ? linkedPair({ gate: fixture.gate }) : undefined;
  const port: GatePort = pair?.client ?? new InProcessGatePort(fixture.gate);
  const model: ScriptedMessagesServer = await startScriptedMessagesServer();
  const dir = mkdtempSync(join(tmpdir(), 'countersign-claude-'));
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  mkdirSync(home);
  mkdirSync(work);

  /** One `query` of the real runtime: the model makes `turns`, the hooks guard every call. */
  async function run(turns: ScriptedTurn[], options: { resume?: string; hooks?: Partial<CountersignClaudeOptions>; permissionMode?: 'default' | 'acceptEdits' } = {}) {
    model.script(...turns);
    const { hooks } = countersignHooks({ port, principal: 'user:42', ...options.hooks });
    let sessionId = '';
    const denials: string[] = [];
    for await (const message of query({
      prompt: 'do the task',
      options: {
        cwd: work,
        model: 'claude-scripted',
        maxTurns: turns.length + 2,
        settingSources: [],
        permissionMode: options.permissionMode ?? 'default',
        ...(options.resume === undefined ? {} : { resume: options.resume }),
        env: { PATH: process.env.PATH ?? '', HOME: home, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-scripted', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
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
    return { sessionId, denials };
  }

  return {
    fixture,
    port,
    model,
    work,
    run,
    async close() {
      await model.close();
      await pair?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
