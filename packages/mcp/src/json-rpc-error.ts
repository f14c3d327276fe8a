/**
 * A JSON-RPC error the gateway answers a client with. Not an `McpError`: that class puts
 * "MCP error <code>: " in its message, the SDK sends the message as it is, and the
 * client's SDK prefixes it again ("MCP error -32602: MCP error -32602: …"). The SDK's
 * request dispatch takes `code`, `message` and `data` from any thrown error.
 */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'JsonRpcError';
    this.code = code;
    this.data = data;
  }
}
