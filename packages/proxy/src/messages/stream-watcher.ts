import { unrecordable } from '../chat/tool-calls.ts';
import type { ModelCall, ModelCalls } from '../model-call.ts';
import { isRecord } from '../relayed.ts';
import { eventJson } from '../sse/event-json.ts';
import type { StreamWatcher } from '../sse/guard-stream.ts';
import { unreadableUpstream } from '../upstream-error.ts';
import { readStrictJson } from './strict-json.ts';
import { isServerToolResult, providerOutputOf } from './server-tool-results.ts';
import { isToolUse, providerExecuted, toolUseIdentity, withOutputs } from './tool-uses.ts';

/** A content block as the stream built it: a tool use (id, name, input) or anything else. */
type Block = { tool: false; output?: { callId: string; value: Record<string, unknown> } } | { tool: true; id: string; name: string; startInput: string; json: string; deltas: boolean; executedBy?: 'provider' };

/**
 * Assembles a streamed Messages API response's tool uses exactly as the official
 * `@anthropic-ai/sdk` MessageStream does: each `content_block_start` appends a block, and
 * a `content_block_delta` addresses `blocks.at(index)`; `input_json_delta` fragments are
 * appended to that tool use's JSON text, which then replaces the input the start gave
 * (no fragment: the start's input). The text is recorded as it is, so a truncated or
 * duplicate-key input that the SDK's lenient parser would accept is refused by the
 * gate's strict intake. Holds from the first finished tool-use block, `message_delta`
 * (the stop reason) or `message_stop`, and reads every event after.
 */
export function messagesStreamWatcher(): StreamWatcher {
  const blocks: Block[] = [];
  let responseRef: string | undefined;
  return {
    observe(event) {
      const parsed = eventJson(event);
      if (!parsed.ok) return { error: parsed.error };
      const data = parsed.data;
      const param = `content[${String(data.index)}]`;
      switch (data.type) {
        case 'message_start': {
          const message = data.message;
          if (isRecord(message) && typeof message.id === 'string') responseRef ??= message.id;
          if (isRecord(message) && Array.isArray(message.content) && message.content.some(isToolUse)) {
            return { error: unrecordable('message.content', 'a tool use in message_start is not recorded; tool uses must stream as content blocks') };
          }
          return 'pass';
        }
        case 'content_block_start': {
          const block = data.content_block;
          if (isServerToolResult(block)) {
            // A server tool's output, whole in its start (read strictly): recorded for its call, so sending it back is checked.
            const strict = strictBlock(event.data);
            if (!strict.ok || typeof strict.block.tool_use_id !== 'string') return { error: unrecordable(param, `a ${block.type} block must be strict JSON naming its tool_use_id`) };
            blocks.push({ tool: false, output: { callId: strict.block.tool_use_id, value: providerOutputOf(strict.block) } });
            return 'pass';
          }
          if (!isToolUse(block)) {
            blocks.push({ tool: false });
            return 'pass';
          }
          const identity = toolUseIdentity(block);
          // The start's input is recorded when no fragment follows: read it strictly, as the gate would read text.
          const strict = strictBlock(event.data);
          if (!strict.ok) return { error: unrecordable(param, `a tool use's input must be strict JSON (${strict.why})`) };
          const input = strict.block.input ?? {};
          if (identity === undefined || !isRecord(input)) return { error: unrecordable(param, `a ${String(block.type)} block needs an id, a name and an object input`) };
          blocks.push({ tool: true, ...identity, startInput: JSON.stringify(input), json: '', deltas: false, ...providerExecuted(block) });
          return 'pass';
        }
        case 'content_block_delta': {
          const delta = data.delta;
          if (!Number.isInteger(data.index)) return { error: unreadableUpstream(`${param}: a content block delta without an index`) };
          const block = blocks.at(data.index as number);
          // A delta to a server tool's output would change what was recorded: the SDK's assembly of it is not defined.
          if (block?.tool === false && block.output !== undefined) return { error: unrecordable(param, 'a delta to a server tool result block is not recorded') };
          if (block?.tool !== true || !isRecord(delta) || delta.type !== 'input_json_delta') return 'pass';
          if (typeof delta.partial_json !== 'string') return { error: unrecordable(param, 'an input_json_delta without partial_json text') };
          block.json += delta.partial_json;
          block.deltas = true;
          return 'pass';
        }
        case 'content_block_stop':
          if (!Number.isInteger(data.index)) return { error: unreadableUpstream(`${param}: a content block stop without an index`) };
          return blocks.at(data.index as number)?.tool === true ? 'hold' : 'pass';
        case 'message_delta':
        case 'message_stop':
          return 'hold';
        default:
          return 'pass';
      }
    },
    calls(): ModelCalls {
      const calls: ModelCall[] = [];
      const outputs = new Map<string, unknown>();
      for (const block of blocks) {
        if (!block.tool) {
          if (block.output !== undefined) outputs.set(block.output.callId, block.output.value);
          continue;
        }
        // As the SDK: the fragments' text when any came (an empty text reads as {}), else the start's input.
        const args = block.deltas ? (block.json === '' ? '{}' : block.json) : block.startInput;
        calls.push({ id: block.id, name: block.name, arguments: args, ...(block.executedBy === undefined ? {} : { executedBy: block.executedBy }) });
      }
      return { ok: true, calls: withOutputs(calls, outputs) };
    },
    responseRef: () => responseRef,
  };
}

/** A content_block_start event read strictly: its content block, or why it is not strict JSON. */
function strictBlock(data: string): { ok: true; block: Record<string, unknown> } | { ok: false; why: string } {
  const strict = readStrictJson(data);
  if (!strict.ok) return strict;
  const block = isRecord(strict.value) ? strict.value.content_block : undefined;
  return { ok: true, block: isRecord(block) ? block : {} };
}
