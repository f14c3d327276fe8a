import { parseToolDefinition } from '../../catalog/parse-definition.ts';
import { type Agent, DEFAULT_AGENT } from '../common/agent.ts';
import type { GateDeps } from '../config.ts';
import { REVIEW_RUN_PREFIX } from './definition-review.ts';

/** How many tools one registration may carry. */
export const MAX_REGISTERED_TOOLS = 256;

export type RegisterToolsOutcome =
  | { ok: true; tools: Array<{ name: string; definitionDigest: string }> }
  | {
      ok: false;
      reason: 'invalid_definition' | 'tool_defined_in_process' | 'registered_by_other_agent' | 'store_unavailable';
      message: string;
      /** The tool the refusal is about. */
      name?: string | undefined;
    };

/**
 * A remote agent declares the tools it runs itself, so policy, the approval page and
 * pinning work for them: each definition is recorded by digest and becomes the tool's
 * current definition. Registering does not trust it: the pin decides (a new or changed
 * definition waits for review unless trust on first use is on). All definitions are
 * checked before any is stored; a tool registered in code, or by another agent, is refused.
 */
export async function registerTools(deps: GateDeps, definitions: unknown, agent: Agent = DEFAULT_AGENT): Promise<RegisterToolsOutcome> {
  if (!Array.isArray(definitions) || definitions.length === 0 || definitions.length > MAX_REGISTERED_TOOLS) {
    return { ok: false, reason: 'invalid_definition', message: `tools must be a list of 1 to ${MAX_REGISTERED_TOOLS} definitions` };
  }
  const parsed = [];
  const names = new Set<string>();
  for (const value of definitions) {
    const definition = parseToolDefinition(value);
    if (!definition.ok) return { ok: false, reason: definition.reason, message: definition.message };
    const name = definition.definition.name;
    if (names.has(name)) return { ok: false, reason: 'invalid_definition', message: `${name} is listed twice`, name };
    if (name.startsWith(REVIEW_RUN_PREFIX)) return { ok: false, reason: 'invalid_definition', message: `tool names starting with "${REVIEW_RUN_PREFIX}" are reserved`, name };
    names.add(name);
    parsed.push(definition);
  }
  try {
    for (const { definition } of parsed) {
      const entry = await deps.catalog.resolve(definition.name);
      if (entry !== undefined && entry.vouched === true) {
        return { ok: false, reason: 'tool_defined_in_process', message: `${definition.name} is a tool of the approval service itself`, name: definition.name };
      }
    }
    const now = deps.clock();
    for (const { definition, digest, text } of parsed) {
      await deps.definitions.recordDefinition(digest, text, now);
      const registered = await deps.definitions.register({ toolName: definition.name, definitionDigest: digest, agent: agent.id, updatedAt: now });
      if (!registered.ok) {
        return { ok: false, reason: registered.reason, message: `${definition.name} was registered by another agent`, name: definition.name };
      }
    }
    return { ok: true, tools: parsed.map((p) => ({ name: p.definition.name, definitionDigest: p.digest })) };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: error instanceof Error ? error.message : String(error) };
  }
}
