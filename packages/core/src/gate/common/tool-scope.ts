import type { CatalogEntry } from '../../catalog/types.ts';

/**
 * Which agents may use a registered tool besides the agent that registered it: tool name
 * to agent ids, `*` for every agent. Sharing is a deployment's deliberate choice, made in
 * configuration, never by the registering agent.
 */
export type SharedTools = Readonly<Record<string, readonly string[]>>;

/** The part of the gate's dependencies a scope check reads: `SharedTools` resolved once. */
export interface ToolSharing {
  sharedTools: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The agent that may use every tool shared with `*`. */
export const ANY_AGENT = '*';

/** `SharedTools` as looked up per call; malformed configuration is a TypeError at startup. */
export function resolveSharedTools(shared: SharedTools | undefined): ReadonlyMap<string, ReadonlySet<string>> {
  const resolved = new Map<string, ReadonlySet<string>>();
  if (shared === undefined) return resolved;
  if (typeof shared !== 'object' || shared === null || Array.isArray(shared)) throw new TypeError('sharedTools must map tool names to lists of agent ids');
  for (const [tool, agents] of Object.entries(shared)) {
    if (!Array.isArray(agents) || agents.some((a) => typeof a !== 'string' || a === '')) {
      throw new TypeError(`sharedTools.${tool} must be a list of agent ids (or "${ANY_AGENT}")`);
    }
    resolved.set(tool, new Set(agents));
  }
  return resolved;
}

/**
 * Whether `agentId` may see and call `entry`. A tool an agent registered belongs to that
 * agent: for every other agent it is `unknown_tool`, at propose, authorize and admission
 * alike, unless the deployment shares it. Tools registered in code or served by a
 * configured catalogue carry no registering agent and are everyone's.
 */
export function mayUseTool(deps: ToolSharing, entry: Pick<CatalogEntry, 'name' | 'registeredBy'>, agentId: string): boolean {
  if (entry.registeredBy === undefined || entry.registeredBy === agentId) return true;
  const shared = deps.sharedTools.get(entry.name);
  return shared !== undefined && (shared.has(ANY_AGENT) || shared.has(agentId));
}

/** The entry when `agentId` may use it; otherwise undefined, exactly like a tool nobody registered. */
export function entryFor(deps: ToolSharing, entry: CatalogEntry | undefined, agentId: string): CatalogEntry | undefined {
  return entry !== undefined && mayUseTool(deps, entry, agentId) ? entry : undefined;
}
