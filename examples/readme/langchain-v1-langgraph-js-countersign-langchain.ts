import { createGate, keyringFromEnv, loadPolicyFile, memoryStore } from '@countersign/core';
import { countersignInterrupts, countersignMiddleware } from '@countersign/langchain';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { tool } from '@langchain/core/tools';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { z } from 'zod';

const transferSchema = { type: 'object', properties: { to: { type: 'string' }, amount: { type: 'number' } }, required: ['to', 'amount'] };
const gate = createGate({
  store: memoryStore(),                            // openSqliteStore / openPostgresStore in a real service
  policy: await loadPolicyFile('policy.yaml'),
  keyring: keyringFromEnv(),
  // LangChain runs the tool; the gate pins its definition and authorizes each call.
  tools: { transfer: { definition: { name: 'transfer', description: 'Move money', inputSchema: transferSchema }, execute: () => undefined } },
});
const transfer = tool(async ({ to, amount }) => `sent ${amount} to ${to}`, {
  name: 'transfer', description: 'Move money', schema: z.object({ to: z.string(), amount: z.number() }),
});

/** One agent per user session: principal and session from YOUR authentication, never from the messages. */
export function agentFor(model: BaseChatModel, session: { id: string; userId: string }) {
  return createAgent({
    model, tools: [transfer], checkpointer: new MemorySaver(),   // interrupts need a checkpointer
    middleware: [countersignMiddleware({
      port: gate.port({ id: 'lc-app' }),             // or createClient(...) for a shared service
      context: (rt) => ({ runId: `run-${rt.configurable?.thread_id}`, sessionId: session.id, principal: `user:${session.userId}` }),
    })],
  });
}

export async function ask(agent: ReturnType<typeof agentFor>, thread_id: string, text: string) {
  const r = await agent.invoke({ messages: [{ role: 'user', content: text }] }, { configurable: { thread_id } });
  return countersignInterrupts(r.__interrupt__).map((req) => req.requestId);   // show these to an approver
}

// the approver decides in Countersign (page / API); then:
export async function resume(agent: ReturnType<typeof agentFor>, thread_id: string) {
  return agent.invoke(new Command({ resume: 'decided' }), { configurable: { thread_id } });
}
