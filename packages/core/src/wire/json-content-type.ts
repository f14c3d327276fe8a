/**
 * Whether a request's `Content-Type` says JSON in UTF-8: the media type is
 * `application/json` and every `charset` parameter says UTF-8 (none at all is UTF-8, RFC
 * 8259). JSON bodies are always read as UTF-8, so a body declared in another charset
 * (`charset=utf-16`) would be read as something its sender did not write: refuse it (415)
 * before parsing. Fail closed: a `charset` that cannot be read as UTF-8 (no value, a
 * quoted `;`) is not UTF-8.
 */
export function isUtf8JsonContentType(header: string | undefined): boolean {
  const [mediaType, ...parameters] = (header ?? '').split(';');
  if (mediaType?.trim().toLowerCase() !== 'application/json') return false;
  for (const parameter of parameters) {
    const at = parameter.indexOf('=');
    const name = (at === -1 ? parameter : parameter.slice(0, at)).trim().toLowerCase();
    if (name !== 'charset') continue;
    const value = parameter
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (at === -1 || value !== 'utf-8') return false;
  }
  return true;
}
