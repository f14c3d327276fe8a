import { CanonicalizationError, jsonCharsetProblem, parseStrictJson } from '@countersign/core/canonical';
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

/** A body declaring a charset other than UTF-8 is refused (415), never reinterpreted: core's `jsonCharsetProblem`, the proxy's rule too. */
function requireUtf8(c: Context): void {
  const problem = jsonCharsetProblem(c.req.header('content-type'));
  if (problem !== undefined) throw new ApiError('unsupported_media_type', problem);
}
