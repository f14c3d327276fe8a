const PLACEHOLDER_ORIGIN = 'http://countersign.invalid';
/** Longest return path kept: a request URL with a query, not a document. */
const MAX_NEXT_LENGTH = 512;

/**
 * Where to send a browser after it signs in, from the `next` it came with: a path on
 * this site only. Anything else (another origin, a scheme, `//host`, `/\host`, which
 * browsers read as `//host`, control characters, the sign-in pages themselves) gives
 * `/`. The result is rebuilt from the parsed URL, so what is returned is what was checked.
 */
export function safeNext(next: string | undefined): string {
  if (next === undefined || next.length === 0 || next.length > MAX_NEXT_LENGTH) return '/';
  // A relative path, starting with one slash; no backslash or control/space character anywhere.
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\') || hasControlOrSpace(next)) return '/';
  let url: URL;
  try {
    url = new URL(next, PLACEHOLDER_ORIGIN);
  } catch {
    return '/';
  }
  if (url.origin !== PLACEHOLDER_ORIGIN) return '/';
  // Checked again after parsing: dot segments collapse, so `/.//host` or `/%2e//host` parse
  // to the path `//host`, which a browser reads as another origin.
  if (url.pathname.startsWith('//') || url.pathname.includes('\\')) return '/';
  if (url.pathname === '/login' || url.pathname === '/logout') return '/';
  return `${url.pathname}${url.search}`;
}

/** Spaces and C0/C1 controls: browsers strip some of them from URLs, so `/\t/host` can become `//host`. */
function hasControlOrSpace(text: string): boolean {
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code <= 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** The login URL that returns to `path` (the page a signed-out visitor asked for). */
export function loginUrlFor(path: string): string {
  const next = safeNext(path);
  return next === '/' ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}
