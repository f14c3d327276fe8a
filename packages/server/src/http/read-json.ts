import { CanonicalizationError, parseStrictJson } from '@countersign/core/canonical';
import { isUtf8JsonContentType } from '@countersign/core/wire';
import type { Context } from 'hono';
import { ApiError } from '../errors/api-error.ts';

export interface JsonBodyLimits {
  maxBytes: number;
  maxDepth: number;
}

/**
 * Reads a JSON request body with the same strict intake as tool arguments: a
 * duplicate key (`{"requestId":"a","requestId":"b"}`), a lossy number or a lone
 * surrogate anywhere in the body is refused, so no two parsers can disagree about
 * what a request said.
 */
export async function readJsonBody(c: Context, limits: JsonBodyLimits): Promise<unknown> {
  requireContentType(c, isJsonMediaType, 'application/json');
  requireUtf8(c);
  const text = await c.req.text();
  try {
    return parseStrictJson(text, limits);
  } catch (error) {
    if (!(error instanceof CanonicalizationError)) throw new ApiError('malformed_json', 'request body is not valid JSON');
    switch (error.code) {
      case 'invalid_json':
        throw new ApiError('malformed_json', 'request body is not valid JSON');
      case 'too_large':
        throw new ApiError('payload_too_large', `request body is larger than ${limits.maxBytes} bytes`);
      case 'too_deep':
        throw new ApiError('nesting_too_deep', `request body is nested deeper than ${limits.maxDepth} levels`);
      default:
        throw new ApiError('invalid_json_value', `request body was refused: ${error.code}`);
    }
  }
}

export function requireContentType(c: Context, accepts: (mediaType: string) => boolean, expected: string): void {
  const header = c.req.header('content-type');
  const mediaType = header?.split(';', 1)[0]?.trim().toLowerCase();
  if (mediaType === undefined || !accepts(mediaType)) {
    throw new ApiError('unsupported_media_type', `content-type must be ${expected}`);
  }
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json';
}

/**
 * JSON is UTF-8 (RFC 8259) and the body is always read as UTF-8: a request that declares
 * another charset (`application/json; charset=utf-16`) would be read as something its
 * sender did not write, so it is refused (415), not reinterpreted (`isUtf8JsonContentType`,
 * shared with the MCP gateway's fronts: fail closed on a charset it cannot read).
 */
function requireUtf8(c: Context): void {
  if (!isUtf8JsonContentType(c.req.header('content-type'))) throw new ApiError('unsupported_media_type', 'content-type must be application/json in UTF-8 (no other charset)');
}
