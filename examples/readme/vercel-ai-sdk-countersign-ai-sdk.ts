import { countersign, recordUserDecision, serviceDecisions, toolDefinitions } from '@countersign/ai-sdk';
import { createClient } from '@countersign/client';
import { jsonSchema, type LanguageModel, type ModelMessage, streamText, tool } from 'ai';

const baseUrl = process.env.COUNTERSIGN_URL ?? 'http://127.0.0.1:8787';
const client = createClient({ baseUrl, token: process.env.COUNTERSIGN_AGENT_TOKEN ?? '' });
const tools = {
  transfer: tool({
    description: 'Move money',
    inputSchema: jsonSchema<{ to: string; amount: number }>({ type: 'object', properties: { to: { type: 'string' }, amount: { type: 'number' } }, required: ['to', 'amount'] }),
    execute: async ({ to, amount }) => ({ sent: amount, to }),          // your bank.transfer
  }),
};
await client.registerTools(await toolDefinitions(tools));   // in process: tools: sdkToolRegistry(await toolDefinitions(tools))

/** Who is asking, from YOUR authentication: never from the request body. */
export interface ChatSession { chatId: string; sessionId: string; userId: string }

// POST /chat: run, session and principal from the session
export function chat(session: ChatSession, model: Exclude<LanguageModel, string>, messages: ModelMessage[]): Response {
  const cs = countersign({ port: client /* or gate.port(agent) */, context: { runId: session.chatId, sessionId: session.sessionId, principal: `user:${session.userId}` } });
  return streamText({ model: cs.model(model), tools: cs.tools(tools), toolApproval: cs.toolApproval, messages }).toUIMessageStreamResponse();
}

// POST /chat/approve, authenticated as the user: their decision is recorded in Countersign
export async function approve(session: ChatSession, toolCallId: string, approverHeaders: Record<string, string>) {
  return recordUserDecision({ runId: session.chatId, toolCallId, decision: 'approve', recorder: serviceDecisions({ baseUrl, headers: approverHeaders }) });
}
