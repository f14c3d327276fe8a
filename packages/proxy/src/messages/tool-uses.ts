import { unrecordable } from '../chat/tool-calls.ts';
import type { ModelCall, ModelCalls } from '../model-call.ts';
import { isRecord } from '../relayed.ts';
import { serverToolOutputs } from './server-tool-results.ts';
import { readStrictJson } from './strict-json.ts';

/**
 * Whether a Messages API content block is a tool call: `tool_use` (the client runs it),
 * `server_tool_use` and `mcp_tool_use` (the provider runs it). Every one is recorded, so
 * policy decides on server tools too, and any block type the API adds under that suffix
 * is treated as a call rather than passed through unrecorded.
 */
export function isToolUse(block: unknown): block is Record<string, unknown> {
  return isRecord(block) && typeof block.type === 'string' && block.type.endsWith('tool_use');
}

/** A tool use the provider runs itself (`server_tool_use`, `mcp_tool_use`): it ran before the proxy saw it. */
export function providerExecuted(block: Record<string, unknown>): { executedBy?: 'provider' } {
  return block.type === 'tool_use' ? {} : { executedBy: 'provider' };
}

/** A tool-use block's id and name, or the reason it cannot be recorded. */
export function toolUseIdentity(block: Record<string, unknown>): { id: string; name: string } | undefined {
  return typeof block.id === 'string' && block.id !== '' && typeof block.name === 'string' && block.name !== '' ? { id: block.id, name: block.name } : undefined;
}

/**
 * The tool calls of a (non-streaming) Messages API response: every tool-use block of its
 * `content`, with its `input` as the argument text (written back without whitespace). The
 * input arrives as JSON inside the response, not as text the gate could parse strictly,
 * so a response with tool uses is read again strictly (`text`): duplicate keys, numbers
 * that lose precision or lone surrogates refuse it rather than being recorded as
 * `JSON.parse` rounds them. A block without an id, a name or an object input refuses it too.
 */
export function messageToolUses(message: unknown, text: string): ModelCalls {
  if (!isRecord(message) || !Array.isArray(message.content) || !message.content.some(isToolUse)) return { ok: true, calls: [] };
  const strict = readStrictJson(text);
  if (!strict.ok) return { ok: false, error: unrecordable('content', `a response with tool uses must be strict JSON (${strict.why})`) };
  const content = isRecord(strict.value) && Array.isArray(strict.value.content) ? strict.value.content : [];
  const calls: ModelCall[] = [];
  for (const [i, block] of content.entries()) {
    if (!isToolUse(block)) continue;
    const identity = toolUseIdentity(block);
    if (identity === undefined || !isRecord(block.input)) return { ok: false, error: unrecordable(`content[${i}]`, `a ${String(block.type)} block needs an id, a name and an object input`) };
    calls.push({ ...identity, arguments: JSON.stringify(block.input), ...providerExecuted(block) });
  }
  return { ok: true, calls: withOutputs(calls, serverToolOutputs(content)) };
}

/** Each provider's call with the output the same answer carried for it (read strictly), when there is one. */
export function withOutputs(calls: ModelCall[], outputs: ReadonlyMap<string, unknown>): ModelCall[] {
  return calls.map((call) => (call.executedBy === 'provider' && outputs.has(call.id) ? { ...call, output: outputs.get(call.id) } : call));
}
