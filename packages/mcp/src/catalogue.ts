import { type Agent, definitionDigest, MAX_REGISTERED_TOOLS, type ToolAdmission, type ToolDefinition } from '@countersign/core/gate';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { GatewayGate } from './gateway-gate.ts';
import type { ToolNaming } from './names.ts';
import type { Upstream } from './upstream.ts';

/** One upstream tool as the gateway serves it: under its served name, with exactly the pinned fields. */
export interface ServedTool {
  name: string;
  upstream: string;
  upstreamTool: string;
  definition: ToolDefinition;
  digest: string;
}

export class GatewayError extends Error {
  readonly code: 'registration_refused' | 'upstream_failed';

  constructor(code: 'registration_refused' | 'upstream_failed', message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * The gateway's view of its upstreams' tools (check 1). Every listing is registered with
 * the approval service, so the store keeps each definition by digest and the tool's pin
 * decides: a tool is served only while the gate admits its current definition. A changed
 * definition is hidden and refused; admitting it opened its review (old and new side by
 * side on the approval page), and approving the review serves it again.
 */
export class ToolCatalogue {
  readonly #tools = new Map<string, ServedTool>();
  // Digest last registered per served name, so an unchanged listing writes nothing.
  readonly #registered = new Map<string, string>();

  readonly #gate: GatewayGate;
  readonly #agent: Agent;
  readonly #upstreams: ReadonlyMap<string, Upstream>;
  readonly #naming: ToolNaming;

  constructor(gate: GatewayGate, agent: Agent, upstreams: ReadonlyMap<string, Upstream>, naming: ToolNaming) {
    this.#gate = gate;
    this.#agent = agent;
    this.#upstreams = upstreams;
    this.#naming = naming;
  }

  /** Lists every upstream again, registers what changed, and returns the tools the gate admits now. */
  async refresh(): Promise<ServedTool[]> {
    const listed = await Promise.all([...this.#upstreams.values()].map((upstream) => this.#listUpstream(upstream)));
    const tools = listed.flat();
    await this.#register(tools);
    this.#tools.clear();
    for (const tool of tools) this.#tools.set(tool.name, tool);
    const admitted = await Promise.all(tools.map(async (tool) => ({ tool, admission: await this.#gate.admitTool(tool.name) })));
    return admitted.filter(({ admission }) => admission.ok).map(({ tool }) => tool);
  }

  /**
   * Lists one upstream again and registers what changed, without admitting anything: before
   * a call, so a definition changed since the last listing is the one the call is proposed
   * under (and refused), not the one the client saw.
   */
  async relist(upstreamName: string): Promise<void> {
    const upstream = this.#upstreams.get(upstreamName);
    if (upstream === undefined) return;
    const tools = await this.#listUpstream(upstream);
    await this.#register(tools);
    for (const [name, tool] of this.#tools) if (tool.upstream === upstreamName) this.#tools.delete(name);
    for (const tool of tools) this.#tools.set(tool.name, tool);
  }

  /** The tool as last listed (refreshing first when the gateway has not listed yet). */
  async lookup(name: string): Promise<ServedTool | undefined> {
    if (this.#tools.size === 0) await this.refresh();
    return this.#tools.get(name);
  }

  /** Whether the tool's current definition may be served and called. */
  admit(name: string): Promise<ToolAdmission> {
    return this.#gate.admitTool(name);
  }

  async #listUpstream(upstream: Upstream): Promise<ServedTool[]> {
    let tools: Tool[];
    try {
      tools = await upstream.listTools();
    } catch (error) {
      throw new GatewayError('upstream_failed', `${upstream.name}: tools/list failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return tools.map((tool) => {
      const definition = definitionOf(this.#naming.served(upstream.name, tool.name), tool);
      return { name: definition.name, upstream: upstream.name, upstreamTool: tool.name, definition, digest: definitionDigest(definition) };
    });
  }

  async #register(tools: ServedTool[]): Promise<void> {
    const changed = tools.filter((tool) => this.#registered.get(tool.name) !== tool.digest);
    for (let at = 0; at < changed.length; at += MAX_REGISTERED_TOOLS) {
      const batch = changed.slice(at, at + MAX_REGISTERED_TOOLS);
      const outcome = await this.#gate.registerTools(
        batch.map((tool) => tool.definition),
        this.#agent,
      );
      if (!outcome.ok) throw new GatewayError('registration_refused', `registering ${outcome.name ?? 'tools'}: ${outcome.reason}: ${outcome.message}`);
      for (const tool of batch) this.#registered.set(tool.name, tool.digest);
    }
  }
}

/** The pinned fields of an upstream tool (CASA check 1 covers all of them), under its served name. */
export function definitionOf(name: string, tool: Tool): ToolDefinition {
  const definition: ToolDefinition = { name };
  if (tool.title !== undefined) definition.title = tool.title;
  if (tool.description !== undefined) definition.description = tool.description;
  if (tool.inputSchema !== undefined) definition.inputSchema = tool.inputSchema as Record<string, unknown>;
  if (tool.outputSchema !== undefined) definition.outputSchema = tool.outputSchema as Record<string, unknown>;
  if (tool.annotations !== undefined) definition.annotations = tool.annotations as Record<string, unknown>;
  return definition;
}
