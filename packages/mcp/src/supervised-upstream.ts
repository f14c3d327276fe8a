import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectUpstream, type Upstream, type UpstreamConfig, type UpstreamRelay } from './upstream.ts';

/** The JSON-RPC error code of a request to an upstream that is down (implementation-defined server error range). */
export const UPSTREAM_UNAVAILABLE = -32010;

/** A request to an upstream that is down (crashed, restarting, unreachable): typed, so a call is refused as `upstream_unavailable`. */
export class UpstreamUnavailableError extends McpError {
  readonly reason = 'upstream_unavailable' as const;

  constructor(upstream: string, why: string) {
    super(UPSTREAM_UNAVAILABLE, `upstream ${upstream} is unavailable (${why}); the gateway reconnects with backoff`, { countersign: { reason: 'upstream_unavailable', upstream } });
    this.name = 'UpstreamUnavailableError';
  }
}

export interface SupervisorHooks {
  onToolsChanged: () => void;
  onListChanged?: ((kind: 'prompts' | 'resources') => void) | undefined;
  relay?: UpstreamRelay | undefined;
  log: (line: string) => void;
  /** First retry delay; it doubles per failed attempt up to `maxBackoffMs`. */
  backoffMs?: number | undefined;
  maxBackoffMs?: number | undefined;
}

const DEFAULT_BACKOFF_MS = 250;
const DEFAULT_MAX_BACKOFF_MS = 30_000;

/**
 * An upstream the gateway keeps connected. A stdio upstream that exits, or one that could
 * not be reached at start, is down: its requests fail at once with `UpstreamUnavailableError`
 * (its tools are hidden: the catalogue's listing of it fails) while it is reconnected with
 * backoff; once back, the gateway lists it again and tells its clients (`list_changed`).
 * A Streamable HTTP upstream that lost the session (it restarted: 404, or 400 naming the
 * session) is initialized again and the request repeated once (it did not run there).
 * An upstream given as a ready transport (tests, embedding) cannot be restarted.
 */
export class SupervisedUpstream implements Upstream {
  readonly name: string;
  readonly #config: UpstreamConfig;
  readonly #hooks: SupervisorHooks;
  #current: Upstream | undefined;
  #known: Upstream['capabilities'] = {};
  #why = 'not connected yet';
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #reconnecting: Promise<Upstream> | undefined;
  #closed = false;

  private constructor(config: UpstreamConfig, hooks: SupervisorHooks) {
    this.name = config.name;
    this.#config = config;
    this.#hooks = hooks;
  }

  /** Connects; an upstream that cannot be reached now leaves the gateway running without it (logged) and is retried. */
  static async start(config: UpstreamConfig, hooks: SupervisorHooks): Promise<SupervisedUpstream> {
    const supervised = new SupervisedUpstream(config, hooks);
    try {
      await supervised.#connect();
    } catch (error) {
      if ('transport' in config) throw error;
      supervised.#down(errorText(error));
    }
    return supervised;
  }

  get available(): boolean {
    return this.#current?.available === true;
  }

  get client(): Upstream['client'] {
    return this.#up().client;
  }

  /** What the upstream declared when it was last connected ({} before it ever was). */
  get capabilities(): Upstream['capabilities'] {
    return this.#current?.capabilities ?? this.#known;
  }

  listTools: Upstream['listTools'] = () => this.#request((u) => u.listTools());
  callTool: Upstream['callTool'] = (tool, argsJson, options) => this.#request((u) => u.callTool(tool, argsJson, options));
  listPrompts: Upstream['listPrompts'] = () => this.#request((u) => u.listPrompts());
  getPrompt: Upstream['getPrompt'] = (name, args) => this.#request((u) => u.getPrompt(name, args));
  listResources: Upstream['listResources'] = () => this.#request((u) => u.listResources());
  listResourceTemplates: Upstream['listResourceTemplates'] = () => this.#request((u) => u.listResourceTemplates());
  readResource: Upstream['readResource'] = (uri) => this.#request((u) => u.readResource(uri));
  complete: Upstream['complete'] = (params) => this.#request((u) => u.complete(params));

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#current?.close();
  }

  #up(): Upstream {
    const current = this.#current;
    if (current === undefined || !current.available) throw new UpstreamUnavailableError(this.name, this.#why);
    return current;
  }

  async #request<T>(send: (upstream: Upstream) => Promise<T>): Promise<T> {
    const upstream = this.#up();
    try {
      return await send(upstream);
    } catch (error) {
      if (!('url' in this.#config) || !isLostSession(error)) throw error;
      this.#hooks.log(`upstream ${this.name} lost the session (${errorText(error)}); initializing again`);
      return send(await this.#reinitialize(upstream));
    }
  }

  /** A new session with an HTTP upstream (concurrent requests that found the session lost share it). */
  #reinitialize(stale: Upstream): Promise<Upstream> {
    this.#reconnecting ??= (async () => {
      try {
        if (this.#current === stale) await stale.close().catch(() => undefined);
        return await this.#connect();
      } finally {
        this.#reconnecting = undefined;
      }
    })();
    return this.#reconnecting;
  }

  async #connect(): Promise<Upstream> {
    const hooks = this.#hooks;
    const upstream = await connectUpstream(this.#config, hooks.onToolsChanged, hooks.onListChanged, hooks.relay, hooks.log);
    if (this.#closed) {
      await upstream.close();
      throw new UpstreamUnavailableError(this.name, 'the gateway is closing');
    }
    this.#current = upstream;
    this.#known = upstream.capabilities;
    this.#attempt = 0;
    const onclose = upstream.client.onclose;
    upstream.client.onclose = () => {
      onclose?.();
      if (this.#current === upstream && !this.#closed) this.#down('its connection closed');
    };
    return upstream;
  }

  #down(why: string): void {
    this.#why = why;
    const delay = Math.min((this.#hooks.backoffMs ?? DEFAULT_BACKOFF_MS) * 2 ** this.#attempt, this.#hooks.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS);
    this.#attempt++;
    this.#hooks.log(`upstream ${this.name} is unavailable (${why}); its tools are hidden; reconnecting in ${delay} ms`);
    // Its tools go away from the listing now (the catalogue's listing of it fails).
    this.#hooks.onToolsChanged();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#retry(), delay);
    this.#timer.unref();
  }

  async #retry(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#connect();
    } catch (error) {
      if (!this.#closed) this.#down(errorText(error));
      return;
    }
    this.#hooks.log(`upstream ${this.name} is connected again`);
    this.#hooks.onToolsChanged();
    this.#hooks.onListChanged?.('prompts');
    this.#hooks.onListChanged?.('resources');
  }
}

/** A Streamable HTTP upstream that no longer knows the session (it restarted): 404, or a 400 that says so. */
function isLostSession(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError)) return false;
  return error.code === 404 || (error.code === 400 && /session/i.test(error.message));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
