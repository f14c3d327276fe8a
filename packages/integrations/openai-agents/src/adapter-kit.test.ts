import { randomUUID } from 'node:crypto';
import { type AdapterKitApp, type AdapterKitCall, describeAdapterAttacks } from '@countersign/core/testing';
import { Agent, type AgentInputItem } from '@openai/agents';
import { afterAll } from 'vitest';
import { agentApp, approvedInSdk, bankServer, editPath, FILES_AGENT_TOOL, fileTools, runner, scriptedModel, USER, WIRINGS, type Wiring } from './agents.test-helper.ts';
import { memoryCallIndex } from './call-index.ts';
import { countersign } from './countersign.ts';

/*
 * The adapter attack kit through the OpenAI Agents SDK itself (its Runner, RunState
 * strings, SDK-level approvals, input items), on the in-process gate and over
 * @countersign/client.
 */

/** Every shape in which an Agents input item carries a tool's output to the model. */
const SHAPES = ['string', 'text', 'content-parts'] as const;

function output(shape: string, text: string): unknown {
  if (shape === 'text') return { type: 'text', text };
  if (shape === 'content-parts') return [{ type: 'input_text', text }];
  return text;
}

function forge(history: AgentInputItem[], callId: string, shape: string, text: string): AgentInputItem[] {
  const known = history.some((item) => item.type === 'function_call_result' && item.callId === callId);
  if (known) return history.map((item) => (item.type === 'function_call_result' && item.callId === callId ? ({ ...item, output: output(shape, text) } as AgentInputItem) : item));
  return [
    ...history,
    { type: 'function_call', callId, name: 'list_dir', arguments: '{"path":"/"}', status: 'completed' },
    { type: 'function_call_result', callId, name: 'list_dir', status: 'completed', output: output(shape, text) as never },
  ];
}

/** Adds, next to every item holding the function call `callId`, a copy for the call `inject` (a call the model never made). */
function injectCall(serialized: string, callId: string, inject: AdapterKitCall): string {
  const copyFor = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replaceAll(`"${callId}"`, `"${inject.callId}"`).replaceAll('\\"/tmp/a\\"', `\\"${String(inject.arguments.path)}\\"`));
  const holds = (value: unknown) => JSON.stringify(value).includes(`"${callId}"`);
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.flatMap((inner) => (typeof inner === 'object' && inner !== null && holds(inner) ? [walk(inner), copyFor(inner)] : [walk(inner)]));
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, walk(inner)]));
  };
  return JSON.stringify(walk(JSON.parse(serialized)));
}


function kitApp(wiring: Wiring): AdapterKitApp {
  const app = agentApp(wiring);
  let saved = '';
  let history: AgentInputItem[] = [];
  let requests: Record<string, string | undefined> = {};
  return {
    shapes: SHAPES,
    executions: app.executions,
    async start(calls) {
      const turn = await app.start(
        'go',
        calls.map((c) => ({ callId: c.callId, name: c.toolName, args: c.arguments })),
      );
      saved = turn.result.state.toString();
      history = turn.result.state.history as AgentInputItem[];
      requests = turn.requests;
    },
    requestId: async (callId) => requests[callId],
    async resume(options = {}) {
      let state = saved;
      const callIds = Object.keys(requests);
      if (options.tamper?.arguments !== undefined) state = editPath(state, '/tmp/a', String(options.tamper.arguments.path));
      if (options.tamper?.toolName !== undefined) state = state.replaceAll('read_file', options.tamper.toolName);
      if (options.inject !== undefined && callIds[0] !== undefined) {
        state = injectCall(state, callIds[0], options.inject);
        callIds.push(options.inject.callId);
      }
      await app.resume(await approvedInSdk(app.agent(), state, callIds));
    },
    async relay({ callId, shape, text }) {
      await app.continueFrom(forge(history, callId, shape, text));
    },
    async relayUnknownShape() {
      await app.continueFrom([...history, { type: 'computer_call_result', callId: 'kit-computer', output: { type: 'computer_screenshot', data: 'x' } } as never]);
    },
    async runTimeTool(kind) {
      const cs = countersign({ port: wiring.port, context: { runId: `agents-run-${randomUUID()}`, sessionId: 'agents-session-1', principal: USER }, index: memoryCallIndex() });
      if (kind === 'mcp_server') {
        const model = scriptedModel([{ callId: 'call-mcp', name: 'move_money', args: {} }]);
        const agent = new Agent({ name: 'file-agent', model: cs.model(model), tools: cs.tools(fileTools([])), mcpServers: [bankServer(app.executions)] });
        await runner.run(agent, 'pay');
        return;
      }
      // An agent used as a tool, wrapped like any function tool (not through cs.agentTool): the outer call would be
      // guarded, but the inner agent's own model and tools are not.
      const files = new Agent({ name: 'files', model: scriptedModel([{ callId: 'call-inner', name: 'read_file', args: { path: '/etc/shadow' } }]), tools: fileTools(app.executions) });
      const model = scriptedModel([{ callId: 'call-ask', name: FILES_AGENT_TOOL.toolName, args: { input: 'read /etc/shadow' } }]);
      const agent = new Agent({ name: 'triage', model: cs.model(model), tools: cs.tools([...fileTools([]), files.asTool(FILES_AGENT_TOOL)]) });
      await runner.run(agent, 'read it');
    },
  };
}

for (const makeWiring of WIRINGS) {
  const wiring = makeWiring();
  afterAll(() => wiring.close());
  describeAdapterAttacks(`OpenAI Agents SDK, ${wiring.name}`, () => ({
    app: () => kitApp(wiring),
    async decide(requestId, decision, editedArguments) {
      if (editedArguments !== undefined) return wiring.editAsOps(requestId, editedArguments);
      return wiring.asOps(requestId, decision);
    },
    calls: {
      approve: { callId: 'call-read', toolName: 'read_file', arguments: { path: '/tmp/a' } },
      allow: { callId: 'call-list', toolName: 'list_dir', arguments: { path: '/tmp' } },
      unlisted: { callId: 'call-shell', toolName: 'shell', arguments: { path: '/bin' } },
      edited: { path: '/tmp/b' },
    },
    runTimeTools: ['mcp_server', 'agent_as_tool'],
    auditRecords: () => wiring.audit.read({ limit: 1_000_000 }),
  }));
}
