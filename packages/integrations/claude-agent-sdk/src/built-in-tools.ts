import type { ToolDefinition } from '@countersign/core/gate';

/**
 * Definitions for tools the Claude Agent SDK's runtime runs itself (Bash, Write, Edit, …)
 * or reaches through MCP (`mcp__server__tool`). The runtime never shows its own tool
 * schemas to a hook, so the pinned definition names the tool and the runtime version
 * that serves it: the approval binds the name and that version, and a runtime upgrade
 * changes the digest, which disables the tool until a person trusts the new one.
 */
export function runtimeToolDefinitions(toolNames: readonly string[], runtimeVersion: string): ToolDefinition[] {
  return toolNames.map((name) => ({
    name,
    description: `Claude Agent SDK tool ${name}, run by the SDK's runtime ${runtimeVersion}`,
    inputSchema: { type: 'object' },
  }));
}
