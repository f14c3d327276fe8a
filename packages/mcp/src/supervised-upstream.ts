import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ClientCapabilities, McpError } from '@modelcontextprotocol/sdk/types.js';
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
  /** The largest message read from the upstream (message-size.ts). */
  maxMessageBytes?: number | undefined;
}

const DEFAULT_BACKOFF_MS = 250;
const DEFAULT_MAX_BACKOFF_MS = 30_000;

/**
 * An upstream the gateway keeps connected. A stdio upstream that exits, or one that could
 * not be reached at start, is down: its requests fail at once with `UpstreamUnavailableError`
 * (its tools are hidden: the upstreamTools's listing of it fails) while it is reconnected with
 * backoff; once back, the gateway lists it again and tells its clients (`list_changed`).
 * A Streamable HTTP upstream that lost the session (it restarted: 404, or 400 naming the
 * session) is initialized again and the request repeated once (it did not run there).
 * An upstream given as a ready transport (tests, embedding) cannot be restarted.
 *
 * MCP fixes a client's capabilities at initialize, so when the gateway's clients declare
 * other capabilities than the upstream was told (`redeclare`), it is connected again (a
 * stdio upstream is restarted); requests made meanwhile wait for the new connection.
 */
export class SupervisedUpstream implements Upstream {
  readonly name: string;
  readonly #config: UpstreamConfig;
  readonly #hooks: SupervisorHooks;
  #current: Upstream | undefined;
  #known: Upstream['capabilities'] = {};
  /** What the gateway declared to the upstream at the last connect (client-relay.ts). */
  #declared: ClientCapabilities = {};
  #why = 'not connected yet';
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #reconnecting: Promise<Upstream> | undefined;
  #closed = false;
  /** The first connection attempt (`start`), undefined until something needs the upstream. */
  #first: Promise<void> | undefined;

  private constructor(config: UpstreamConfig, hooks: SupervisorHooks) {
    this.name = config.name;
    this.#config = config;
    this.#hooks = hooks;
  }

  /**
   * Not connected yet: it connects at `start` or at its first request, whichever comes
   * first. The gateway starts its upstreams once its first client's `initialize` is known,
   * so they are told that client's capabilities at their own initialize, not connected
   * twice (MCP fixes a client's capabilities at initialize).
   */
  static idle(config: UpstreamConfig, hooks: SupervisorHooks): SupervisedUpstream {
    return new SupervisedUpstream(config, hooks);
  }

  /**
   * The first connection, declaring `declared` (default: what the relay says now); every
   * later call waits for that same attempt. An upstream that cannot be reached then leaves
   * the gateway running without it (logged) and is retried with backoff; one given as a
   * ready transport cannot be retried, so its failure is thrown.
   */
  start(declared?: ClientCapabilities): Promise<void> {
    this.#first ??= this.#connect(declared).then(
      () => undefined,
      (error: unknown) => {
        if ('transport' in this.#config) throw error;
        if (!this.#closed) this.#down(errorText(error));
      },
    );
    return this.#first;
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

  /**
   * Connects again if the upstream was told other client capabilities than the relay's now
   * (a client without sampling must not leave an upstream believing it may sample). A
   * supervised upstream that is down declares the new ones when its retry connects; one
   * given as a ready transport cannot be reconnected and keeps what it was told.
   */
  redeclare(): Promise<void> {
    if (this.#closed || 'transport' in this.#config) return Promise.resolve();
    const pending = this.#reconnecting;
    if (pending !== undefined) return pending.then(
      () => this.redeclare(),
      () => this.redeclare(),
    );
    const current = this.#current;
    const wanted = this.#hooks.relay?.capabilities ?? {};
    if (current === undefined || !current.available || sameCapabilities(this.#declared, wanted)) return Promise.resolve();
    this.#hooks.log(`upstream ${this.name} is connected again to declare the clients' capabilities (${describe(wanted)} instead of ${describe(this.#declared)})`);
    // A failed attempt left it down and retried (#replace): nothing more to do here.
    return this.#replace(current).then(
      () => this.#hooks.onToolsChanged(),
      () => undefined,
    );
  }

  async #request<T>(send: (upstream: Upstream) => Promise<T>): Promise<T> {
    // Never connected yet (nothing asked before): this request starts it.
    if (this.#current === undefined) await (this.#first ?? this.start());
    // An upstream being connected again (a lost session, new client capabilities): the request waits for it.
    if (this.#reconnecting !== undefined) await this.#reconnecting.catch(() => undefined);
    const upstream = this.#up();
    try {
      return await send(upstream);
    } catch (error) {
      if (!('url' in this.#config) || !isLostSession(error)) throw error;
      this.#hooks.log(`upstream ${this.name} lost the session (${errorText(error)}); initializing again`);
      return send(await this.#replace(upstream));
    }
  }

  /**
   * Closes `stale` (if still current) and connects anew: a new session with an HTTP upstream
   * that lost its own, or new client capabilities. Concurrent callers share one attempt; a
   * failed one leaves the upstream down, retried with backoff.
   */
  #replace(stale: Upstream): Promise<Upstream> {
    this.#reconnecting ??= (async () => {
      try {
        // The new connection first: meanwhile the upstream still counts as available (listings wait for the
        // new one), and once it is current the old one's close is ours, not the upstream going down.
        const fresh = await this.#connect();
        await stale.close().catch(() => undefined);
        return fresh;
      } catch (error) {
        if (this.#current === stale) {
          this.#current = undefined;
          await stale.close().catch(() => undefined);
        }
        if (!this.#closed) this.#down(errorText(error));
        throw error;
      } finally {
        this.#reconnecting = undefined;
      }
    })();
    return this.#reconnecting;
  }

  async #connect(declared: ClientCapabilities = this.#hooks.relay?.capabilities ?? {}): Promise<Upstream> {
    const hooks = this.#hooks;
    const upstream = await connectUpstream(this.#config, hooks.onToolsChanged, hooks.onListChanged, hooks.relay, hooks.log, declared, hooks.maxMessageBytes);
    if (this.#closed) {
      await upstream.close();
      throw new UpstreamUnavailableError(this.name, 'the gateway is closing');
    }
    // Before it serves: what the clients set on the previous connection (their log level, resource subscriptions).
    await hooks.relay?.restore?.(upstream).catch((error: unknown) => hooks.log(`upstream ${this.name}: could not set again what the clients set (${errorText(error)})`));
    this.#current = upstream;
    this.#declared = declared;
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
    // Its tools go away from the listing now (the upstreamTools's listing of it fails).
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

function sameCapabilities(a: ClientCapabilities, b: ClientCapabilities): boolean {
  return describe(a) === describe(b);
}

/** The relayed capabilities' names, in a fixed order: what the log shows and what is compared. */
function describe(capabilities: ClientCapabilities): string {
  const names = [
    capabilities.sampling === undefined ? undefined : 'sampling',
    capabilities.elicitation?.form === undefined ? undefined : 'elicitation',
    capabilities.elicitation?.url === undefined ? undefined : 'URL elicitation',
    capabilities.roots === undefined ? undefined : 'roots',
  ].filter((name) => name !== undefined);
  return names.length === 0 ? 'none' : names.join(', ');
}

/** A Streamable HTTP upstream that no longer knows the session (it restarted): 404, or a 400 that says so. */
function isLostSession(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError)) return false;
  return error.code === 404 || (error.code === 400 && /session/i.test(error.message));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
