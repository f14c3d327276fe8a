import { type ConversationMessage, textOfContent } from '@countersign/core/integration';
import type { BaseMessage } from '@langchain/core/messages';

/**
 * The conversation of a model call (`wrapModelCall`'s request: its system message or
 * prompt, and its messages) as plain-text messages for task extraction. Tool messages
 * (and messages of roles this does not know) are role `tool`: data, never the user's
 * words. Images, files, reasoning and tool calls carry no text here.
 */
export function conversationOfRequest(request: { systemMessage?: unknown; systemPrompt?: unknown; messages: readonly BaseMessage[] }): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  const push = (role: ConversationMessage['role'], content: string) => {
    if (content !== '') out.push({ role, content });
  };
  const system = request.systemMessage as { content?: unknown } | undefined;
  if (system !== undefined && system !== null) push('system', textOfContent(system.content));
  else if (typeof request.systemPrompt === 'string') push('system', request.systemPrompt);
  for (const message of request.messages) {
    if (typeof message !== 'object' || message === null) continue;
    const role = roleOf(message);
    if (role !== undefined) push(role, textOfContent(message.content));
  }
  return out;
}

function roleOf(message: BaseMessage): ConversationMessage['role'] | undefined {
  const type: unknown = message.type;
  if (type === 'remove') return undefined;
  const role = type === 'generic' ? (message as { role?: unknown }).role : type;
  if (role === 'human' || role === 'user') return 'user';
  if (role === 'ai' || role === 'assistant') return 'assistant';
  if (role === 'system' || role === 'developer') return 'system';
  return 'tool';
}

export type { ConversationMessage, IntentOption, TaskExtractor, TaskSource } from '@countersign/core/integration';
