import type { ToolDefinition, ToolRegistry } from '@countersign/core/gate';
import { frameworkToolRegistry } from '@countersign/core/integration';
import { asSchema } from 'ai';

interface DescribedTool {
  /** A string; a v7 description function (computed per call) is not pinned: pass such definitions yourself. */
  description?: unknown;
  title?: string | undefined;
  inputSchema?: unknown;
}

/**
 * The Countersign definitions of AI SDK tools (name, title, description, JSON Schema of
 * the input): what the gate pins and the approver is shown. Register them with the
 * service (`client.registerTools(definitions)`) or the in-process gate
 * (`sdkToolRegistry(definitions)`); a changed description or schema is then a changed
 * definition, and calls stop until a person re-approves it (invariant 9).
 */
export async function toolDefinitions(tools: Record<string, DescribedTool>): Promise<ToolDefinition[]> {
  const definitions: ToolDefinition[] = [];
  for (const [name, tool] of Object.entries(tools)) {
    const inputSchema = tool.inputSchema === undefined ? undefined : await asSchema(tool.inputSchema as Parameters<typeof asSchema>[0]).jsonSchema;
    definitions.push({
      name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      ...(inputSchema === undefined ? {} : { inputSchema: inputSchema as Record<string, unknown> }),
    });
  }
  return definitions;
}

/**
 * An in-process gate's registry for tools the AI SDK runs: their pinned definitions.
 * The SDK runs them (guarded: authorize → execute → complete); the gate's own
 * `dispatch` never does, so its `execute` refuses.
 */
export function sdkToolRegistry(definitions: readonly ToolDefinition[]): ToolRegistry {
  return frameworkToolRegistry(definitions, 'the AI SDK (authorize → execute → complete)');
}
