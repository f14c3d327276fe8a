/**
 * The OpenAI Agents SDK with Countersign, offline (the SDK's own ScriptedModel):
 *   npm run example:openai-agents
 *
 * A file agent: the model lists /tmp (allowed, runs) and asks to read /tmp/a (needs an
 * `ops` approver). The run interrupts; the app saves the RunState string. Someone with
 * the saved string edits it to /etc/passwd, or writes an approval into it: nothing runs,
 * each gets a typed refusal. An ops approver approves in Countersign; the app resumes
 * the honest state and the read runs once; resuming it again is a replay: refused.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Gate, hmacKey, Keyring, loadPolicy, MemoryAuditLog, MemoryLedger } from '@countersign/core';
import { countersign, memoryCallIndex, sdkToolRegistry, toolDefinitions } from '@countersign/openai-agents';
import { Agent, Runner, RunState, tool, Usage } from '@openai/agents';
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing';
import { z } from 'zod';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const POLICY = `
version: 1
rules:
  - tool: list_dir
    verdict: allow
  - tool: read_file
    verdict: approve
    approval: { approvers: { roles: [ops] }, ttlSeconds: 600 }
`;

/** What the tools actually did: the only proof of "nothing ran". */
const executions: Array<{ tool: string; args: unknown }> = [];
const makeTool = (name: string) =>
  tool({
    name,
    description: `${name.replace('_', ' ')} (example)`,
    parameters: z.object({ path: z.string() }),
    execute: async (args) => {
      executions.push({ tool: name, args });
      return { ok: true, path: args.path };
    },
  });
const tools = [makeTool('list_dir'), makeTool('read_file')];

/** The model: function calls for the user's message, text after tool results. */
function scriptedModel() {
  const respond = modelResponder(({ request }) => ({
    usage: new Usage(),
    responseId: `resp_${randomUUID()}`,
    output:
      typeof request.input === 'string' || (request.input.at(-1) as { role?: string } | undefined)?.role === 'user'
        ? [functionCall('list_dir', { path: '/tmp' }, { callId: 'call-ls' }), functionCall('read_file', { path: '/tmp/a' }, { callId: 'call-read' })]
        : [assistantMessage('Done.')],
  }));
  return new ScriptedModel(Array.from({ length: 10 }, () => respond));
}

export async function runOpenAiAgentsExample() {
  const gate = new Gate({
    definitions: new MemoryDefinitionStore(),
    ledger: new MemoryLedger(),
    audit: new MemoryAuditLog(),
    policy: loadPolicy(POLICY, 'yaml'),
    keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]), // keyringFromEnv() in a real service
    tools: sdkToolRegistry(toolDefinitions(tools)), // the gate pins the SDK tools' definitions
  });
  const port = gate.port({ id: 'file-agent' });
  const index = memoryCallIndex(); // the app's record of which ledger call each SDK call id is
  const context = { runId: 'files-1', sessionId: 'session-1', principal: 'user:42' }; // from the app's own session
  const runner = new Runner({ tracingDisabled: true });

  // Each run or resumption: a fresh guard, the index shared.
  const guarded = () => {
    const cs = countersign({ port, context, index });
    return { cs, agent: new Agent({ name: 'files', model: cs.model(scriptedModel()), tools: cs.tools(tools) }) };
  };
  const resume = async (saved: string, options: { applyDecisions?: boolean } = {}) => {
    const { cs, agent } = guarded();
    const state = await RunState.fromString(agent, saved);
    if (options.applyDecisions === true) await cs.applyDecisions(state);
    await runner.run(agent, state);
    return cs.refusals;
  };
  const approvedInSdk = async (saved: string) => {
    const state = await RunState.fromString(guarded().agent, saved);
    for (const item of state.getInterruptions()) state.approve(item);
    return state.toString();
  };

  const steps: Array<{ step: string; outcome: string }> = [];
  const record = (step: string, refusals: Array<{ status: string; reason: string }>, before: number) =>
    steps.push({ step, outcome: refusals.length > 0 ? refusals.map((r) => `${r.status} (${r.reason})`).join(', ') : `ran ${executions.length - before}×` });

  const { cs, agent } = guarded();
  const first = await runner.run(agent, 'List /tmp and read /tmp/a');
  const [approval] = await cs.approvals(first.interruptions);
  if (approval?.requestId === undefined) throw new Error('expected an approval request');
  const saved = first.state.toString(); // what the app stores until the approver decides
  steps.push({ step: 'model: list_dir /tmp + read_file /tmp/a', outcome: `list ran; read waits for request ${approval.requestId}` });

  let before = executions.length;
  record('saved state: approval written in (nobody approved)', await resume(await approvedInSdk(saved)), before);
  const decided = await gate.approvals.decide({ id: 'olga', roles: ['ops'] }, { requestId: approval.requestId, decision: 'approve' });
  steps.push({ step: 'ops approver approves in Countersign', outcome: decided.ok ? 'recorded in Countersign' : decided.reason });
  const edited = (await approvedInSdk(saved)).replaceAll('\\"/tmp/a\\"', '\\"/etc/passwd\\"');
  before = executions.length;
  record('saved state: path edited to /etc/passwd', await resume(edited), before);
  before = executions.length;
  record('app resumes the saved state (applyDecisions)', await resume(saved, { applyDecisions: true }), before);
  before = executions.length;
  record('saved state resumed again (replay)', await resume(await approvedInSdk(saved)), before);
  return { steps, executions: [...executions] };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { steps, executions: ran } = await runOpenAiAgentsExample();
  for (const { step, outcome } of steps) console.log(`${step.padEnd(52)} ${outcome}`);
  console.log(`\ntools that ran: ${JSON.stringify(ran)}`);
}
