import { z } from 'zod';
import type { ConversationMessage, TaskExtractor } from '../matcher/types.ts';
import { type ChatEndpoint, checkEndpoint, completeJson } from './chat-client.ts';
import { extractPrompt } from './prompts.ts';

export interface LlmExtractorOptions extends ChatEndpoint {
  /** Most conversation characters sent (newest kept). Default 24 000. */
  maxConversationChars?: number | undefined;
}

/** The gate refuses longer tasks; a summary is one sentence. */
const MAX_TASK_CHARS = 4000;

const ExtractReply = z.strictObject({ task: z.string() });
const EXTRACT_REPLY_SCHEMA = {
  type: 'object',
  properties: { task: { type: 'string' } },
  required: ['task'],
  additionalProperties: false,
};

/**
 * Extracts the user's current task (one sentence) from the conversation with any
 * OpenAI-compatible chat endpoint, agent- or proxy-side, so only that sentence reaches
 * the authorization side. Every failure is `{ ok: false, reason }`: the caller proposes
 * without a task and the gate's intent stage fails closed.
 */
export function createLlmExtractor(options: LlmExtractorOptions): TaskExtractor {
  checkEndpoint(options);
  const maxChars = options.maxConversationChars ?? 24_000;
  return {
    id: `llm:${options.model}`,
    async extract(messages: readonly ConversationMessage[], signal?: AbortSignal) {
      if (!messages.some((m) => m.role === 'user' && m.content.trim() !== '')) return { ok: false, reason: 'no_user_message' };
      const reply = await completeJson(options, extractPrompt(messages, maxChars), { name: 'current_task', schema: ExtractReply, jsonSchema: EXTRACT_REPLY_SCHEMA }, signal);
      if (!reply.ok) return { ok: false, reason: reply.reason };
      const task = reply.value.task.trim();
      if (task === '') return { ok: false, reason: 'empty_task' };
      if (task.length > MAX_TASK_CHARS || !task.isWellFormed()) return { ok: false, reason: 'invalid_task' };
      return { ok: true, task };
    },
  };
}
