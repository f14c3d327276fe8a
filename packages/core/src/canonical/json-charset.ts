/**
 * Why a JSON body's `Content-Type` cannot be read as UTF-8, or undefined when it can.
 * JSON is UTF-8 (RFC 8259) and every Countersign reader (the approval service, the LLM-API
 * proxy) decodes it as UTF-8: a body that declares another charset
 * (`application/json; charset=utf-16`) would be read as something its sender did not
 * write, so it is refused (415), never reinterpreted. Fail closed: every `charset`
 * parameter must say UTF-8; one that cannot be read as such (no value, a quoted `;`, a
 * second charset that is not UTF-8) refuses the body too. No header, or no charset, is UTF-8.
 */
export function jsonCharsetProblem(contentType: string | null | undefined): string | undefined {
  const parameters = (contentType ?? '').split(';').slice(1);
  for (const parameter of parameters) {
    const at = parameter.indexOf('=');
    const name = (at === -1 ? parameter : parameter.slice(0, at)).trim().toLowerCase();
    if (name !== 'charset') continue;
    const value = parameter
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (at === -1 || value !== 'utf-8') return 'content-type must be application/json in UTF-8 (no other charset)';
  }
  return undefined;
}
