/**
 * Tool names through the gateway. With several upstreams every tool is served as
 * `<upstream>__<tool>` (the prefix keeps two servers' `read_file` apart, and names the
 * upstream in policy: `fs__*`). `__` because MCP tool names allow only letters, digits,
 * `_`, `-` and `.` (no `/`), and because `*` globs match it literally. Upstream names may
 * not contain `_`, so the first `__` always ends the upstream's name.
 */
export const NAMESPACE_SEPARATOR = '__';

const UPSTREAM_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/;

export function upstreamNameProblem(name: string): string | undefined {
  return UPSTREAM_NAME.test(name) ? undefined : `upstream name ${JSON.stringify(name)} must be 1-32 letters, digits or '-', starting with a letter or digit`;
}

export interface ToolNaming {
  /** The name the gateway serves (and policy, the ledger and pins use) for an upstream's tool. */
  served(upstream: string, tool: string): string;
  /** The upstream and its own tool name for a served name, or undefined when it names none. */
  parse(served: string): { upstream: string; tool: string } | undefined;
}

/** `namespaced`: prefix every tool with its upstream's name; otherwise the single upstream's names are served as they are. */
export function toolNaming(upstreams: readonly string[], namespaced: boolean): ToolNaming {
  if (!namespaced) {
    if (upstreams.length !== 1) throw new Error('tool names must be namespaced with several upstreams');
    const only = upstreams[0]!;
    return { served: (_upstream, tool) => tool, parse: (served) => ({ upstream: only, tool: served }) };
  }
  const known = new Set(upstreams);
  return {
    served: (upstream, tool) => `${upstream}${NAMESPACE_SEPARATOR}${tool}`,
    parse(served) {
      const at = served.indexOf(NAMESPACE_SEPARATOR);
      if (at <= 0) return undefined;
      const upstream = served.slice(0, at);
      const tool = served.slice(at + NAMESPACE_SEPARATOR.length);
      return known.has(upstream) && tool.length > 0 ? { upstream, tool } : undefined;
    },
  };
}
