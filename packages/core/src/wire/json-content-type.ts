import { jsonCharsetProblem } from '../canonical/json-charset.ts';

/**
 * Whether a request's `Content-Type` says JSON in UTF-8: the media type is
 * `application/json` and no `charset` parameter says anything but UTF-8 (the charset rule is
 * core's `jsonCharsetProblem`, the one the approval service and the proxy apply). For
 * fronts that accept only JSON, like the MCP gateway's: they refuse anything else (415)
 * before parsing.
 */
export function isUtf8JsonContentType(header: string | undefined): boolean {
  const mediaType = (header ?? '').split(';', 1)[0];
  return mediaType?.trim().toLowerCase() === 'application/json' && jsonCharsetProblem(header) === undefined;
}
