import type { IntentConfig } from '../gate/intent/types.ts';
import type { ToolDefinition } from '../catalog/tools.ts';
import { frameworkToolRegistry } from '../integration/tool-registry.ts';
import { loadPolicy } from '../policy/load.ts';
import { makeGateFixture } from './gate-fixture.ts';

/** The bank tools the AI SDK and LangChain integration tests offer their model (object schemas: the framework validates). */
export const BANK_TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  { name: 'transfer', description: 'Move money', inputSchema: { type: 'object' } },
  { name: 'read_balance', description: 'Read the balance', inputSchema: { type: 'object' } },
  { name: 'delete_repo', description: 'Delete a repository', inputSchema: { type: 'object' } },
  { name: 'shell', description: 'Run a command', inputSchema: { type: 'object' } },
];

/**
 * The gate a framework integration's tests run against (memory stores, a manual clock,
 * `policyYaml`), listing `definitions` as tools the framework runs itself. With
 * `intent`, the gate runs its intent stage. The same gate serves both wirings: in
 * process (`gate.port(agent)`) and behind the server app for `@countersign/client`.
 */
export function integrationGate(options: { policyYaml: string; definitions: readonly ToolDefinition[]; framework: string; intent?: IntentConfig | undefined }) {
  const { gate, clock, audit } = makeGateFixture({
    policy: loadPolicy(options.policyYaml, 'yaml'),
    tools: frameworkToolRegistry(options.definitions, options.framework),
    ...(options.intent === undefined ? {} : { intent: options.intent }),
  });
  return { gate, clock, audit };
}
