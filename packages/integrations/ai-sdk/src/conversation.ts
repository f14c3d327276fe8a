import { type ConversationMessage, textOfContent, textOfToolOutput } from '@countersign/core/integration';

/**
 * The prompt of a model call (the SDK's language-model prompt, spec v3 or v4) as
 * plain-text messages for task extraction: system text, the text parts of user and
 * assistant messages, and tool results as role `tool` (data, never the user's words).
 * Files, reasoning, tool calls and approval responses carry no text here.
 */
export function conversationOfPrompt(prompt: unknown): ConversationMessage[] {
  if (!Array.isArray(prompt)) return [];
  const out: ConversationMessage[] = [];
  const push = (role: ConversationMessage['role'], content: string) => {
    if (content !== '') out.push({ role, content });
  };
  for (const message of prompt as Array<{ role?: unknown; content?: unknown }>) {
    if (typeof message !== 'object' || message === null) continue;
    const { role, content } = message;
    if (role === 'system') {
      push('system', textOfContent(content));
      continue;
    }
    if (role !== 'user' && role !== 'assistant' && role !== 'tool') continue;
    const parts: unknown[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    let texts: unknown[] = [];
    const flush = () => {
      if (role !== 'tool') push(role, textOfContent(texts));
      texts = [];
    };
    for (const part of parts) {
      const type = (part as { type?: unknown } | null)?.type;
      if (type === 'text') texts.push(part);
      else if (type === 'tool-result') {
        flush();
        push('tool', toolResultText((part as { output?: unknown }).output));
      }
    }
    flush();
  }
  return out;
}

function toolResultText(output: unknown): string {
  if (typeof output !== 'object' || output === null) return textOfToolOutput(output);
  const { type, value, reason } = output as { type?: unknown; value?: unknown; reason?: unknown };
  if (type === 'execution-denied') return typeof reason === 'string' ? reason : '';
  if (type === 'content') return textOfContent(value);
  return textOfToolOutput(value);
}

export type { ConversationMessage, IntentOption, TaskExtractor, TaskSource } from '@countersign/core/integration';
