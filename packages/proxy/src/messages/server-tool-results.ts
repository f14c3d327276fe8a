import { isRecord } from '../relayed.ts';

/**
 * Whether a Messages API content block is the output of a server tool the provider ran
 * (`web_search_tool_result`, `web_fetch_tool_result`, `code_execution_tool_result`,
 * `mcp_tool_result`…): every `*_tool_result` block but the client's own `tool_result`.
 */
export function isServerToolResult(block: unknown): block is Record<string, unknown> & { type: string } {
  return isRecord(block) && typeof block.type === 'string' && block.type.endsWith('_tool_result') && block.type !== 'tool_result';
}

/**
 * A server tool's output as it is recorded and compared: the whole block as the provider
 * produced it (type, `tool_use_id`, content, error fields), less `cache_control`, which a
 * client may add to any block it sends back and which the model does not read as output.
 */
export function providerOutputOf(block: Record<string, unknown>): Record<string, unknown> {
  const { cache_control: _, ...output } = block;
  return output;
}

/** The server-tool outputs among `content`, by the id of the call they answer. */
export function serverToolOutputs(content: readonly unknown[]): Map<string, Record<string, unknown>> {
  const outputs = new Map<string, Record<string, unknown>>();
  for (const block of content) {
    if (isServerToolResult(block) && typeof block.tool_use_id === 'string') outputs.set(block.tool_use_id, providerOutputOf(block));
  }
  return outputs;
}
