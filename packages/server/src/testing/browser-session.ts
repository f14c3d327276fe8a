import type { Hono } from 'hono';

/** A cookie-holding client for the approval pages, over `app.request`. */
export function browserSession(app: Hono, origin: string) {
  let cookie: string | undefined;

  async function request(method: string, path: string, init: { form?: Record<string, string>; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...(cookie === undefined ? {} : { cookie }), ...init.headers };
    if (init.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin ??= origin;
    }
    const res = await app.request(`${origin}${path}`, {
      method,
      headers,
      ...(init.form === undefined ? {} : { body: new URLSearchParams(init.form).toString() }),
    });
    const set = res.headers.get('set-cookie');
    if (set !== null) {
      const pair = set.split(';', 1)[0]!;
      cookie = pair.endsWith('=') ? undefined : pair;
    }
    return res;
  }

  return {
    request,
    get cookie() {
      return cookie;
    },
    set cookie(value: string | undefined) {
      cookie = value;
    },
    login: (username: string, password: string) => request('POST', '/login', { form: { username, password } }),
    /** The CSRF token embedded in a page's forms. */
    csrfFrom: (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1],
  };
}
