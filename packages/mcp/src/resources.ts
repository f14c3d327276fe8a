import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ErrorCode, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { relayed } from './prompts.ts';
import type { Upstream } from './upstream.ts';
import { JsonRpcError } from './json-rpc-error.ts';

// MCP's "resource not found" (the spec's code; the SDK's enum does not name it).
const RESOURCE_NOT_FOUND = -32002;

/**
 * Resources pass through with their URIs unchanged (a URI is the upstream's name for the
 * thing, and clients, prompts and tool results quote it; rewriting it would break them).
 * A read goes to the upstream that listed the URI, else to the one whose URI template
 * matches it. A URI (or template) two upstreams claim is ambiguous: it is left out of the
 * listing and a read of it is refused, never guessed. With one upstream every read goes
 * to it, as if the client talked to it directly.
 */
export class ResourceRouter {
  readonly #upstreams: readonly Upstream[];
  // URI → the upstreams that listed it (more than one: ambiguous). Built at list time.
  #routes: Map<string, string[]> | undefined;
  #templates: Array<{ upstream: string; text: string; template: UriTemplate | undefined }> | undefined;

  constructor(upstreams: Iterable<Upstream>) {
    this.#upstreams = [...upstreams].filter((u) => u.capabilities.resources !== undefined);
  }

  /** Whether any upstream has resources (the gateway advertises the capability only then). */
  get available(): boolean {
    return this.#upstreams.length > 0;
  }

  /** An upstream's resource list changed: routes are rebuilt on the next listing or read. */
  invalidate(): void {
    this.#routes = undefined;
    this.#templates = undefined;
  }

  async list(): Promise<Resource[]> {
    // An upstream that is down (see supervised-upstream.ts) lists nothing until it is back; the others list as always.
    const listed = await Promise.all(this.#live().map(async (u) => ({ upstream: u.name, resources: await relayed(u, 'resources/list', () => u.listResources()) })));
    const routes = new Map<string, string[]>();
    for (const { upstream, resources } of listed) {
      for (const resource of resources) {
        const owners = routes.get(resource.uri) ?? [];
        if (!owners.includes(upstream)) owners.push(upstream);
        routes.set(resource.uri, owners);
      }
    }
    this.#routes = routes;
    return listed.flatMap(({ resources }) => resources.filter((r) => routes.get(r.uri)?.length === 1));
  }

  async listTemplates(): Promise<ResourceTemplate[]> {
    const listed = await Promise.all(
      this.#live().map(async (u) => ({ upstream: u.name, templates: await relayed(u, 'resources/templates/list', () => u.listResourceTemplates()) })),
    );
    const owners = new Map<string, Set<string>>();
    for (const { upstream, templates } of listed) for (const t of templates) owners.set(t.uriTemplate, (owners.get(t.uriTemplate) ?? new Set()).add(upstream));
    this.#templates = listed.flatMap(({ upstream, templates }) => templates.map((t) => ({ upstream, text: t.uriTemplate, template: parseTemplate(t.uriTemplate) })));
    return listed.flatMap(({ templates }) => templates.filter((t) => owners.get(t.uriTemplate)?.size === 1));
  }

  /** The one upstream that lists `uriTemplate` (for completions of its variables), else undefined. */
  async templateOwner(uriTemplate: string): Promise<Upstream | undefined> {
    if (this.#upstreams.length === 1) return this.#upstreams[0];
    if (this.#templates === undefined || !this.#templates.some((t) => t.text === uriTemplate)) await this.listTemplates();
    const owners = new Set((this.#templates ?? []).filter((t) => t.text === uriTemplate).map((t) => t.upstream));
    const [owner] = owners;
    return owners.size === 1 && owner !== undefined ? this.#upstream(owner) : undefined;
  }

  async read(uri: string): Promise<ReadResourceResult> {
    const upstream = await this.route(uri);
    return relayed(upstream, 'resources/read', () => upstream.readResource(uri));
  }

  /** The one upstream a read (or a subscription) of `uri` goes to; a typed JSON-RPC error when none or several claim it. */
  async route(uri: string): Promise<Upstream> {
    const only = this.#upstreams.length === 1 ? this.#upstreams[0] : undefined;
    if (only !== undefined) return only;
    if (this.#upstreams.length === 0) throw new JsonRpcError(ErrorCode.MethodNotFound, 'no upstream has resources');
    // A client may read a URI it learned elsewhere (a tool result) before any listing.
    if (this.#routes === undefined || !this.#routes.has(uri)) await this.list();
    const listedBy = this.#routes?.get(uri) ?? [];
    if (listedBy.length > 1) throw ambiguous(uri, listedBy);
    if (listedBy[0] !== undefined) return this.#upstream(listedBy[0]);
    if (this.#templates === undefined) await this.listTemplates();
    const matching = new Set((this.#templates ?? []).filter((t) => t.template?.match(uri) != null).map((t) => t.upstream));
    if (matching.size > 1) throw ambiguous(uri, [...matching]);
    const [owner] = matching;
    if (owner === undefined) throw new JsonRpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
    return this.#upstream(owner);
  }

  #live(): Upstream[] {
    return this.#upstreams.filter((u) => u.available);
  }

  #upstream(name: string): Upstream {
    const upstream = this.#upstreams.find((u) => u.name === name);
    if (upstream === undefined) throw new JsonRpcError(RESOURCE_NOT_FOUND, `no upstream named ${name}`);
    return upstream;
  }
}

function ambiguous(uri: string, upstreams: string[]): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Resource ${uri} is served by several upstreams (${upstreams.join(', ')}); the gateway does not guess which one`, {
    uri,
    countersign: { reason: 'ambiguous_resource' },
  });
}

/** An upstream's template, or undefined when it is not one the SDK can parse (it then routes nothing). */
function parseTemplate(text: string): UriTemplate | undefined {
  try {
    return new UriTemplate(text);
  } catch {
    return undefined;
  }
}
