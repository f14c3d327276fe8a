import type { ToolDefinition, ToolRegistry } from '@countersign/core/gate';
import { frameworkToolRegistry } from '@countersign/core/integration';
import type { AnyTool } from './sdk-types.ts';

/**
 * The Countersign definitions of an agent's function tools (name, description, the
 * JSON Schema the SDK sends the model as `parameters`): what the gate pins and the
 * approver is shown. Register them with the service (`client.registerTools(definitions)`)
 * or the in-process gate (`sdkToolRegistry(definitions)`); a changed description or
 * schema is then a changed definition, and calls stop until a person re-approves it
 * (invariant 9).
 */
export function toolDefinitions(tools: readonly AnyTool[]): ToolDefinition[] {
  return tools.flatMap((tool) =>
    tool.type === 'function' ? [{ name: tool.name, description: tool.description, inputSchema: tool.parameters as Record<string, unknown> }] : [],
  );
}

/** The Countersign definitions of handoffs (the function tool the model sees for each): register them like tools. */
export function handoffDefinitions(handoffs: ReadonlyArray<{ toolName: string; toolDescription: string; inputJsonSchema: unknown }>): ToolDefinition[] {
  return handoffs.map((h) => ({ name: h.toolName, description: h.toolDescription, inputSchema: h.inputJsonSchema as Record<string, unknown> }));
}

/**
 * An in-process gate's registry for tools the Agents SDK runs: their pinned definitions.
 * The SDK runs them (guarded: authorize → invoke → complete); the gate's own `dispatch`
 * never does, so its `execute` refuses.
 */
export function sdkToolRegistry(definitions: readonly ToolDefinition[]): ToolRegistry {
  return frameworkToolRegistry(definitions, 'the OpenAI Agents SDK (authorize → invoke → complete)');
}
