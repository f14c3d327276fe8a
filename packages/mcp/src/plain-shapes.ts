import type { CallToolRequest, CallToolResult, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/**
 * Hand-written equivalents of two SDK zod checks on the `tools/call` path, for the shapes
 * nearly every call has. In the gateway process zod's generic parsers cost tens of µs per
 * message (megamorphic: every schema shares them), more than the rest of the check.
 * Each answers only when the outcome is certain and the same as the schema's; anything
 * else is left to the schema itself.
 */

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * The message as `JSONRPCRequestSchema` (a strict object: jsonrpc "2.0", a string or
 * integer id, a string method, optional object params, nothing else) would accept it, or
 * undefined when it would not. Params are the method's own schema's business.
 */
export function plainJsonRpcRequest(message: unknown): JSONRPCRequest | undefined {
  if (!isPlainObject(message)) return undefined;
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return undefined;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (params !== undefined && !isPlainObject(params)) return undefined;
  for (const key of Object.keys(message)) if (!REQUEST_KEYS.has(key)) return undefined;
  return message as JSONRPCRequest;
}

const RESULT_KEYS = new Set(['content', 'structuredContent', 'isError']);
const TEXT_KEYS = new Set(['type', 'text']);

/**
 * The result itself when `CallToolResultSchema` would accept it unchanged: text blocks
 * only (`{ type: "text", text }`), an optional boolean `isError` and object
 * `structuredContent`, no other key. Undefined: ask the schema (images, annotations,
 * `_meta`, a missing `content` it defaults, or something it refuses).
 */
export function plainToolResult(result: unknown): CallToolResult | undefined {
  if (!isPlainObject(result)) return undefined;
  const { content, structuredContent, isError } = result as Record<string, unknown>;
  for (const key of Object.keys(result)) if (!RESULT_KEYS.has(key)) return undefined;
  if (!Array.isArray(content)) return undefined;
  if (isError !== undefined && typeof isError !== 'boolean') return undefined;
  if (structuredContent !== undefined && !isPlainObject(structuredContent)) return undefined;
  for (const block of content) {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return undefined;
    for (const key of Object.keys(block)) if (!TEXT_KEYS.has(key)) return undefined;
  }
  return result as CallToolResult;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The params of a `tools/call` as `CallToolRequestSchema` reads them (name, arguments,
 * `_meta`; other keys are dropped as the schema drops them), or undefined: ask the schema.
 */
export function plainToolCallParams(params: unknown): CallToolRequest['params'] | undefined {
  if (!isPlainObject(params)) return undefined;
  const { name, arguments: args, _meta: meta, task } = params;
  if (typeof name !== 'string' || task !== undefined) return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  if (meta !== undefined) {
    if (!isPlainObject(meta)) return undefined;
    const { progressToken } = meta;
    if (progressToken !== undefined && typeof progressToken !== 'string' && !Number.isSafeInteger(progressToken)) return undefined;
    if (meta[RELATED_TASK_META] !== undefined) return undefined;
  }
  return { name, ...(args === undefined ? {} : { arguments: args }), ...(meta === undefined ? {} : { _meta: meta }) };
}

/** Metadata key of a request related to a task (the SDK's schema checks its shape; such requests take the SDK path). */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';
