import { ErrorCode, type GetPromptResult, McpError, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { ToolNaming } from './names.ts';
import type { Upstream } from './upstream.ts';
import { JsonRpcError } from './json-rpc-error.ts';

/**
 * Prompts pass through: listed from every upstream that has them, under the same names
 * as tools (`<upstream>__<prompt>` with several upstreams, as they are with one), and
 * `prompts/get` goes to the upstream the name says, its result relayed as it came.
 * Policy and pins cover tools, not prompts: a prompt is text the user picks, not an action.
 */
export class PromptRelay {
  readonly #upstreams: readonly Upstream[];
  readonly #naming: ToolNaming;

  constructor(upstreams: Iterable<Upstream>, naming: ToolNaming) {
    this.#upstreams = [...upstreams].filter((u) => u.capabilities.prompts !== undefined);
    this.#naming = naming;
  }

  /** Whether any upstream has prompts (the gateway advertises the capability only then). */
  get available(): boolean {
    return this.#upstreams.length > 0;
  }

  async list(): Promise<Prompt[]> {
    // An upstream that is down (see supervised-upstream.ts) lists nothing until it is back; the others list as always.
    const listed = await Promise.all(
      this.#upstreams
        .filter((u) => u.available)
        .map(async (upstream) => {
        const prompts = await relayed(upstream, 'prompts/list', () => upstream.listPrompts());
        return prompts.map((prompt) => ({ ...prompt, name: this.#naming.served(upstream.name, prompt.name) }));
      }),
    );
    return listed.flat();
  }

  async get(name: string, args: Record<string, string> | undefined): Promise<GetPromptResult> {
    const target = this.#naming.parse(name);
    const upstream = target === undefined ? undefined : this.#upstreams.find((u) => u.name === target.upstream);
    if (target === undefined || upstream === undefined) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    return relayed(upstream, 'prompts/get', () => upstream.getPrompt(target.tool, args));
  }
}

/**
 * An upstream's answer, or its error as the client would have got it directly: a
 * JSON-RPC error from the upstream is relayed with its code; anything else (transport
 * gone, bad response) is an internal error naming the upstream.
 */
export async function relayed<T>(upstream: Upstream, what: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout) {
      // The SDK prefixed "MCP error <code>: " on receipt; the client's SDK adds it again.
      throw new JsonRpcError(error.code, error.message.replace(/^MCP error -?\d+: /, ''), error.data);
    }
    throw new JsonRpcError(ErrorCode.InternalError, `${upstream.name}: ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
