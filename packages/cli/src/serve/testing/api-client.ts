/** A minimal JSON client for the server's API, for tests. */
export function apiClient(baseUrl: string, bearer: string) {
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on response fields one by one; typing every body adds nothing.
  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(new URL(path, baseUrl), {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  }
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body: unknown) => call('POST', path, body),
  };
}

export type ApiClient = ReturnType<typeof apiClient>;
