/**
 * The intent option every framework integration takes: where the user's current task
 * comes from when the gate runs its intent stage. The task is derived agent-side from
 * the conversation the model was given, and only the task sentence goes to the gate,
 * never the conversation. Structural types: an extractor from `@countersign/semantic`
 * (`createLocalExtractor()`, `createLlmExtractor(...)`) plugs in without the
 * integrations depending on it.
 */

/** One message of the conversation a model was given, as plain text (`ConversationMessage` in @countersign/semantic). */
export interface ConversationMessage {
  /** Tool results are `tool`: data, never the user's words. */
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

/** Turns a conversation into the user's current task, one sentence (`TaskExtractor` in @countersign/semantic). */
export interface TaskExtractor {
  extract(messages: readonly ConversationMessage[], signal?: AbortSignal): Promise<{ ok: true; task: string; offered?: readonly string[] | undefined } | { ok: false; reason: string }>;
}

/** What a `task` function is given: the model call's conversation and the integration's context. */
export interface TaskSource {
  /** The conversation the model was given, as plain text (tool results as role `tool`). */
  messages: readonly ConversationMessage[];
  runId: string;
  sessionId: string;
  principal: string;
  signal?: AbortSignal | undefined;
}

/**
 * Where the task proposed with a model response's tool calls comes from: an extractor
 * reading the conversation, or the app's own function (it may know the task itself).
 * No task (a failed extraction, `undefined`, a thrown error) proposes none, and the
 * gate's intent stage fails closed.
 */
export type IntentOption =
  | { extractor: TaskExtractor; task?: undefined }
  | { task: (source: TaskSource) => string | undefined | Promise<string | undefined>; extractor?: undefined };

/** The gate's bound on a task sentence (`MAX_TASK_LENGTH` in the gate); a longer one is no task. */
const MAX_TASK_LENGTH = 4000;

/**
 * The task to propose with a model response's calls, as a field to spread into the
 * `ModelResponse`: `{ task }`, or `{}` without an intent option or when no usable task
 * came out (the extractor failed or threw, the text is blank, too long or malformed).
 * `conversation` is read only when there is an intent option.
 */
export async function intentTask(
  intent: IntentOption | undefined,
  conversation: () => readonly ConversationMessage[],
  context: { runId: string; sessionId: string; principal: string },
  signal?: AbortSignal,
): Promise<{ task?: string; offered?: string[] }> {
  if (intent === undefined) return {};
  let task: unknown;
  let offered: unknown;
  try {
    const messages = conversation();
    if (typeof intent.task === 'function') {
      task = await intent.task({ messages, runId: context.runId, sessionId: context.sessionId, principal: context.principal, signal });
    } else if (typeof intent.extractor?.extract === 'function') {
      const extracted = await intent.extractor.extract(messages, signal);
      task = extracted?.ok === true ? extracted.task : undefined;
      offered = extracted?.ok === true ? extracted.offered : undefined;
    }
  } catch {
    return {};
  }
  if (typeof task !== 'string') return {};
  const trimmed = task.trim();
  if (trimmed === '' || trimmed.length > MAX_TASK_LENGTH || !trimmed.isWellFormed()) return {};
  // Offers the user only accepted travel with the task, so the matcher sends a tool that fits only them to a person.
  const offers = Array.isArray(offered) ? offered.filter((o): o is string => typeof o === 'string' && o.trim() !== '' && o.length <= MAX_TASK_LENGTH && o.isWellFormed()) : [];
  return offers.length === 0 ? { task: trimmed } : { task: trimmed, offered: offers.slice(0, MAX_OFFERS) };
}

/** At most this many accepted offers travel with a task (`MAX_OFFERS` in the gate). */
const MAX_OFFERS = 16;

/** The text of a message content: a string, or the `text` of its text parts (`text`, `input_text`, `output_text`) joined by newlines. */
export function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string') {
      const type = (part as { type?: unknown }).type;
      if (type === undefined || type === 'text' || type === 'input_text' || type === 'output_text') texts.push((part as { text: string }).text);
    }
  }
  return texts.filter((t) => t !== '').join('\n');
}

/** The text of a tool's output: its text, or its JSON when it is structured. */
export function textOfToolOutput(output: unknown): string {
  if (typeof output === 'string') return output;
  if (typeof output === 'object' && output !== null && !Array.isArray(output) && typeof (output as { text?: unknown }).text === 'string') return (output as { text: string }).text;
  const text = textOfContent(output);
  if (text !== '') return text;
  if (output === undefined || output === null) return '';
  try {
    return JSON.stringify(output) ?? '';
  } catch {
    return '';
  }
}
