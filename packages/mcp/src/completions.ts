import { type CompleteRequest, type CompleteResult, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { ToolNaming } from './names.ts';
import { relayed } from './prompts.ts';
import type { ResourceRouter } from './resources.ts';
import type { Upstream } from './upstream.ts';
import { JsonRpcError } from './json-rpc-error.ts';

/**
 * `completion/complete` passes through to the upstream that owns the prompt (by its
 * served name) or the resource template (by the one upstream that lists it), with the
 * prompt's name as that upstream knows it.
 */
export class CompletionRelay {
  readonly #upstreams: readonly Upstream[];
  readonly #naming: ToolNaming;
  readonly #resources: ResourceRouter;

  constructor(upstreams: Iterable<Upstream>, naming: ToolNaming, resources: ResourceRouter) {
    this.#upstreams = [...upstreams].filter((u) => u.capabilities.completions !== undefined);
    this.#naming = naming;
    this.#resources = resources;
  }

  /** Whether any upstream completes arguments (the gateway advertises the capability only then). */
  get available(): boolean {
    return this.#upstreams.length > 0;
  }

  async complete(params: CompleteRequest['params']): Promise<CompleteResult> {
    const { ref } = params;
    if (ref.type === 'ref/prompt') {
      const target = this.#naming.parse(ref.name);
      const upstream = target === undefined ? undefined : this.#completing(target.upstream);
      if (target === undefined || upstream === undefined) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
      return relayed(upstream, 'completion/complete', () => upstream.complete({ ...params, ref: { ...ref, name: target.tool } }));
    }
    const owner = await this.#resources.templateOwner(ref.uri);
    const upstream = owner === undefined ? undefined : this.#completing(owner.name);
    if (upstream === undefined) throw new JsonRpcError(ErrorCode.InvalidParams, `No single upstream serves the resource template ${ref.uri}`);
    return relayed(upstream, 'completion/complete', () => upstream.complete(params));
  }

  #completing(name: string): Upstream | undefined {
    return this.#upstreams.find((u) => u.name === name);
  }
}
