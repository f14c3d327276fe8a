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
export class UpstreamTools {
  readonly #tools = new Map<string, ServedTool>();
  // Digest last registered per served name, so an unchanged listing writes nothing.
  readonly #registered = new Map<string, string>();
  // Per upstream: the listing under way and the one queued behind it (see `relist`).
  readonly #relists = new Map<string, RelistQueue>();
  // Upstreams not listed since the gateway started or since a listing failed: the next call lists first.
  readonly #stale: Set<string>;

  readonly #gate: GatewayGate;
  readonly #agent: Agent;
  readonly #upstreams: ReadonlyMap<string, Upstream>;
  readonly #naming: ToolNaming;

  constructor(gate: GatewayGate, agent: Agent, upstreams: ReadonlyMap<string, Upstream>, naming: ToolNaming) {
    this.#gate = gate;
    this.#agent = agent;
    this.#upstreams = upstreams;
    this.#naming = naming;
    this.#stale = new Set(upstreams.keys());
  }

  /** Lists every upstream again, registers what changed, and returns the tools the gate admits now. */
  async refresh(): Promise<ServedTool[]> {
    // Through each upstream's relist queue, so two listings of one upstream never register out of order.
    // An upstream that cannot be listed (down, restarting) serves nothing meanwhile; the others list as always.
    // The approval service refusing a registration is not an outage: the listing fails with it.
    await Promise.all(
      [...this.#upstreams.keys()].map((name) =>
        this.relist(name).catch((error: unknown) => {
          if (error instanceof GatewayError && error.code === 'registration_refused') throw error;
        }),
      ),
    );
    const tools = [...this.#tools.values()];
    const admitted = await Promise.all(tools.map(async (tool) => ({ tool, admission: await this.#gate.admitTool(tool.name) })));
    this.#unreviewed = admitted.filter(({ admission }) => !admission.ok && admission.reason === 'definition_mismatch').map(({ tool }) => tool.name);
    return admitted.filter(({ admission }) => admission.ok).map(({ tool }) => tool);
  }

  #unreviewed: string[] = [];

  /** The tools the last `refresh` left out because their definition waits for a person (unpinned, or changed). */
  get unreviewed(): readonly string[] {
    return this.#unreviewed;
  }

  /**
   * Lists one upstream again and registers what changed, without admitting anything: a
   * call proposed after it is checked against the definition the upstream serves now.
   * Concurrent callers share listings: one that arrives while a listing is under way
   * waits for the next one (which starts after it arrived), and every caller waiting for
   * that next one shares it. So each caller gets a listing begun after it asked, and an
   * upstream sees at most one listing in flight from these upstream tools.
   */
  relist(upstreamName: string): Promise<void> {
    const queue = this.#relists.get(upstreamName) ?? {};
    this.#relists.set(upstreamName, queue);
    if (queue.next !== undefined) return queue.next;
    const running = queue.running;
    if (running === undefined) return this.#startRelist(upstreamName, queue);
    const slot = queue;
    slot.next = running
      .catch(() => undefined)
      .then(() => {
        slot.next = undefined;
        return this.#startRelist(upstreamName, slot);
      });
    return slot.next;
  }

  /**
   * What a `tools/call` of this upstream waits for before it is proposed (check 1 without
   * a round trip per call): the listing under way or queued (after a `list_changed`, or a
   * client's `tools/list`), or a fresh one when the upstream was never listed or its last
   * listing failed. `undefined` (nothing to wait for) is the common case.
   */
  beforeCall(upstreamName: string): Promise<void> | undefined {
    if (this.#stale.has(upstreamName)) return this.relist(upstreamName);
    const queue = this.#relists.get(upstreamName);
    return queue?.next ?? queue?.running;
  }

  /**
   * The upstream said its tools changed: list it now and admit each tool, so a changed
   * definition moves its pin, is audited and gets its review at once, and calls arriving
   * meanwhile wait for the new listing (`beforeCall`). Never rejects: a failed listing
   * marks the upstream stale, so its next call lists first.
   */
  async listChanged(upstreamName: string): Promise<void> {
    try {
      await this.relist(upstreamName);
      const tools = [...this.#tools.values()].filter((tool) => tool.upstream === upstreamName);
      await Promise.all(tools.map((tool) => this.#gate.admitTool(tool.name)));
    } catch {
      this.#stale.add(upstreamName);
    }
  }

  #startRelist(upstreamName: string, queue: RelistQueue): Promise<void> {
    const running: Promise<void> = this.#relistOnce(upstreamName).finally(() => {
      if (queue.running === running) queue.running = undefined;
    });
    queue.running = running;
    return running;
  }

  async #relistOnce(upstreamName: string): Promise<void> {
    const upstream = this.#upstreams.get(upstreamName);
    if (upstream === undefined) return;
    try {
      const tools = await this.#listUpstream(upstream);
      await this.#register(tools);
      for (const [name, tool] of this.#tools) if (tool.upstream === upstreamName) this.#tools.delete(name);
      for (const tool of tools) this.#tools.set(tool.name, tool);
      this.#stale.delete(upstreamName);
    } catch (error) {
      this.#stale.add(upstreamName);
      // Tools of an upstream that cannot be listed are hidden until it can be (a call is refused `upstream_unavailable`).
      if (!(error instanceof GatewayError && error.code === 'registration_refused')) {
        for (const [name, tool] of this.#tools) if (tool.upstream === upstreamName) this.#tools.delete(name);
      }
      throw error;
    }
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

interface RelistQueue {
  running?: Promise<void> | undefined;
  next?: Promise<void> | undefined;
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
