import { createClient } from '@countersign/client';
import { countersign, memoryCallIndex, toolDefinitions } from '@countersign/openai-agents';
import { Agent, type Model, RunState, run, tool } from '@openai/agents';
import { z } from 'zod';

const client = createClient({ baseUrl: process.env.COUNTERSIGN_URL ?? 'http://127.0.0.1:8787', token: process.env.COUNTERSIGN_AGENT_TOKEN ?? '' });
const tools = [
  tool({ name: 'read_file', description: 'Read a file', parameters: z.object({ path: z.string() }), execute: async ({ path }) => `contents of ${path}` }),
];
await client.registerTools(toolDefinitions(tools));   // in process: tools: sdkToolRegistry(toolDefinitions(tools))
const index = memoryCallIndex();                       // which ledger call each SDK call id is: shared by every process that resumes

/** Who is asking, from YOUR authentication: never from the request. */
export interface Session { runId: string; sessionId: string; userId: string }

function agentFor(session: Session, model: Model) {
  const cs = countersign({ port: client /* or gate.port(agent) */, context: { runId: session.runId, sessionId: session.sessionId, principal: `user:${session.userId}` }, index });
  return { cs, agent: new Agent({ name: 'files', model: cs.model(model), tools: cs.tools(tools) }) };
}

/** Runs until a call needs approval: returns what to show the approver and the state to save. */
export async function start(session: Session, model: Model, input: string) {
  const { cs, agent } = agentFor(session, model);
  const result = await run(agent, input);
  const approvals = await cs.approvals(result.interruptions);   // [{ callId, toolName, requestId }]
  return { approvals, saved: result.state.toString() };
}

/** Later, any process with the same index, after an approver decided in Countersign. */
export async function resume(session: Session, model: Model, saved: string) {
  const { cs, agent } = agentFor(session, model);
  const state = await RunState.fromString(agent, saved);
  await cs.applyDecisions(state);                               // from Countersign, never from the string
  return (await run(agent, state)).finalOutput;
}
