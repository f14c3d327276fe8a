import type { CountersignGuard, ModelToolCall } from './guard.ts';
import { checkRelayedPrompt } from './relay-check.ts';

/** The part of a language model (spec v3 for `ai` 6, v4 for `ai` 7) the guard wraps. */
interface WrappableModel {
  doGenerate(options: CallOptions): PromiseLike<{ content: readonly unknown[]; response?: { id?: string | undefined } | undefined }>;
  doStream(options: CallOptions): PromiseLike<{ stream: ReadableStream<unknown> }>;
}

interface CallOptions {
  prompt: unknown;
  abortSignal?: AbortSignal | undefined;
}

/**
 * Wraps a language model so that the tool calls of each response are proposed to the
 * gate together, when the model produced them and before the SDK sees them: the
 * ledger's record of "what the model asked for" is made here, from the model's own
 * output, never from a history a client sends back.
 *
 * Before each request, the tool results the prompt relays back to the model are checked
 * against the results recorded at `complete` (CASA check 5, `checkRelayed`): a result
 * the client edited or made up in the history refuses the request
 * (`CountersignRelayRefusal`) and the model never sees it.
 *
 * Streams hold the response's tool-call parts until the model finished its response,
 * propose them together, then pass them on (the SDK only acts on a tool call once it
 * has seen it). Everything else streams through untouched.
 *
 * With the guard's `intent` option, the task proposed with a response's calls is derived
 * from the prompt of the model call that produced it (only when it has tool calls).
 */
export function guardModel<MODEL extends WrappableModel>(model: MODEL, guard: CountersignGuard): MODEL {
  // Inherit everything (provider, modelId, supportedUrls getters) and replace the two calls.
  const wrapped = Object.create(model) as MODEL;
  // Ordinary (writable, configurable) properties: the SDK wraps spec-v3 models in a Proxy,
  // and a Proxy must return a non-configurable, read-only property's own value.
  Object.defineProperty(wrapped, 'doGenerate', {
    ...ORDINARY,
    value: async (options: CallOptions) => {
      await checkRelayedPrompt(guard, options.prompt);
      const result = await model.doGenerate(options);
      await guard.proposeResponse(result.content.filter(isToolCall), result.response?.id, requestOf(options));
      return result;
    },
  });
  Object.defineProperty(wrapped, 'doStream', {
    ...ORDINARY,
    value: async (options: CallOptions) => {
      await checkRelayedPrompt(guard, options.prompt);
      const result = await model.doStream(options);
      return { ...result, stream: result.stream.pipeThrough(holdToolCalls(guard, requestOf(options))) };
    },
  });
  return wrapped;
}

const ORDINARY = { writable: true, configurable: true, enumerable: true } as const;

type ModelRequest = NonNullable<Parameters<CountersignGuard['proposeResponse']>[2]>;

const requestOf = (options: CallOptions): ModelRequest => ({ prompt: options.prompt, signal: options.abortSignal });

function holdToolCalls(guard: CountersignGuard, request: ModelRequest): TransformStream<unknown, unknown> {
  let held: ModelToolCall[] = [];
  let responseId: string | undefined;
  const release = async (controller: TransformStreamDefaultController<unknown>) => {
    if (held.length === 0) return;
    const calls = held;
    held = [];
    await guard.proposeResponse(calls, responseId, request);
    for (const call of calls) controller.enqueue(call);
  };
  return new TransformStream({
    async transform(part, controller) {
      if (isToolCall(part)) {
        held.push(part);
        return;
      }
      if (isPart(part, 'response-metadata') && typeof part.id === 'string') responseId = part.id;
      if (isPart(part, 'finish')) await release(controller);
      controller.enqueue(part);
    },
    // A stream that ends without a finish part still gets its calls proposed (and passed on).
    flush: (controller) => release(controller),
  });
}

function isPart(part: unknown, type: string): part is { type: string; id?: unknown } {
  return typeof part === 'object' && part !== null && (part as { type?: unknown }).type === type;
}

function isToolCall(part: unknown): part is ModelToolCall {
  if (!isPart(part, 'tool-call')) return false;
  const call = part as Partial<ModelToolCall>;
  return typeof call.toolCallId === 'string' && typeof call.toolName === 'string' && typeof call.input === 'string';
}
