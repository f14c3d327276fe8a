/**
 * The Claude Agent SDK with Countersign, offline (the SDK's real runtime, a scripted
 * Anthropic Messages API on loopback, no key, no network):
 *   npm run example:claude-agent-sdk
 *
 * A coding agent: the model runs `echo hello` (policy allows it: it runs, and it is in
 * the ledger although the runtime would not even have asked) and writes notes.txt (needs
 * an `ops` approver: refused as pending, nothing written). An ops approver approves in
 * Countersign; the resumed session makes the call again and it runs once, with the
 * ledger's arguments; the same call once more is a replay: refused.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { countersignHooks, runtimeToolDefinitions } from '@countersign/claude-agent-sdk';
import { Gate, hmacKey, Keyring, loadPolicy, MemoryAuditLog, MemoryLedger } from '@countersign/core';
import { InProcessGatePort } from '@countersign/core/gate';
import { frameworkToolRegistry } from '@countersign/core/integration';
import { startScriptedMessagesServer } from '../../packages/integrations/claude-agent-sdk/src/testing/scripted-messages-server.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const POLICY = `
version: 1
rules:
  - tool: Bash
    when: { type: object, properties: { command: { type: string, pattern: "^echo [a-z ]+$" } }, required: [command] }
    verdict: allow
  - tool: Write
    verdict: approve
    approval: { approvers: { roles: [ops] }, ttlSeconds: 600 }
`;

export async function runClaudeAgentSdkExample() {
  const steps: Array<{ step: string; outcome: string }> = [];
  const audit = new MemoryAuditLog();
  const ledger = new MemoryLedger({ audit });
  const gate = new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger,
    audit,
    policy: loadPolicy(POLICY, 'yaml'),
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]),
    tools: frameworkToolRegistry(runtimeToolDefinitions(['Bash', 'Write'], 'example'), 'the Claude Agent SDK runtime'),
  });
  const port = new InProcessGatePort(gate);
  const model = await startScriptedMessagesServer();
  const dir = mkdtempSync(join(tmpdir(), 'countersign-claude-example-'));
  const work = join(dir, 'work');
  mkdirSync(work);
  mkdirSync(join(dir, 'home'));
  const notes = join(work, 'notes.txt');
  const write = { id: 'toolu_write_notes', name: 'Write', input: { file_path: notes, content: 'ship it\n' } };

  const turn = async (tools: Array<{ id: string; name: string; input: Record<string, unknown> }>, resume?: string) => {
    model.script(...tools.map((t) => [t]));
    let sessionId = '';
    const refusals: string[] = [];
    for await (const message of query({
      prompt: 'tidy up and write the notes',
      options: {
        cwd: work,
        model: 'claude-scripted',
        settingSources: [],
        ...(resume === undefined ? {} : { resume }),
        env: { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-offline' },
        ...countersignHooks({ port, principal: 'user:42' }),
      },
    })) {
      if ('session_id' in message && typeof message.session_id === 'string') sessionId = message.session_id;
      if (message.type === 'user' && Array.isArray(message.message.content)) {
        for (const block of message.message.content) {
          const text = typeof block === 'object' && block !== null && 'is_error' in block && block.is_error === true ? String(block.content) : '';
          const refusal = /countersign:(\w+):(\w+)/.exec(text);
          if (refusal !== null) refusals.push(`${refusal[1]} (${refusal[2]})`);
        }
      }
    }
    return { sessionId, refusals };
  };

  try {
    const first = await turn([{ id: 'toolu_echo', name: 'Bash', input: { command: 'echo hello' } }, write]);
    steps.push({ step: 'model runs `echo hello`, then writes notes.txt', outcome: `echo ran; write: ${first.refusals.join(', ')}; notes.txt exists: ${existsSync(notes)}` });
    const proposal = await ledger.findProposalByCall(first.sessionId, write.id);
    const request = proposal === undefined ? undefined : await ledger.findApprovalRequestByProposal(proposal.proposalId);
    await gate.approvals.decide({ id: 'olga', roles: ['ops'] }, { requestId: request?.requestId ?? '', decision: 'approve' });
    steps.push({ step: 'an ops approver approves in Countersign', outcome: 'approved' });
    const second = await turn([write], first.sessionId);
    steps.push({ step: 'the resumed session makes the call again', outcome: `ran: notes.txt = ${JSON.stringify(readFileSync(notes, 'utf8'))}${second.refusals.length > 0 ? `, refused: ${second.refusals.join()}` : ''}` });
    rmSync(notes);
    const replay = await turn([write], first.sessionId);
    steps.push({ step: 'the same call once more (a replay)', outcome: `${replay.refusals.join(', ')}; notes.txt exists: ${existsSync(notes)}` });
    return steps;
  } finally {
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const { step, outcome } of await runClaudeAgentSdkExample()) console.log(`${step}\n  -> ${outcome}`);
}
