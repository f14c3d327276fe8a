import type { html } from 'hono/html';

/** What hono's `html` tag returns: escaped markup, possibly still resolving. */
export type Html = ReturnType<typeof html>;
