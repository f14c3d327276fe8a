import { createHash, randomUUID } from 'node:crypto';
import { type DeliveredEvent, type GateEvent, type GateEventListener, type GateEvents, MemoryGateEvents } from '@countersign/core/events';
import { Client, type ClientConfig, escapeIdentifier, type Pool } from 'pg';
import { decodePayload, encodePayload } from './event-payload.ts';
import { createDatabase } from './open.ts';
import { DEFAULT_SCHEMA } from './open.ts';
import { quoteSchema } from './schema-name.ts';

export interface PostgresEventsOptions {
  connectionString: string;
  /** Replicas on the same schema hear each other; other schemas in the database do not. */
  schema?: string | undefined;
  /** Extra pg.Client settings for both connections (ssl...). */
  client?: Omit<ClientConfig, 'connectionString'> | undefined;
  /** How often the listening connection is checked (a partition shows no error by itself). Default 15000. */
  healthCheckMs?: number | undefined;
  /** First delay before reconnecting the listener; doubles up to 5 s. Default 100. */
  reconnectDelayMs?: number | undefined;
}

const MAX_RECONNECT_DELAY_MS = 5_000;

/**
 * The gate's event bus across replicas on one PostgreSQL schema. `publish` delivers to
 * this process's listeners at once and sends the event (ids only) with NOTIFY; a
 * dedicated connection LISTENs and delivers other replicas' events, marked `remote`.
 * The gate publishes after its store committed, so a replica woken by a notification
 * reads the committed change.
 *
 * Best effort, by design: a NOTIFY sent while a replica's listener is reconnecting is
 * lost to it. So on every reconnect the bus delivers a `resync` (waiters re-read the
 * store), and waiters keep their own periodic re-read as the safety net.
 */
export class PostgresGateEvents implements GateEvents {
  readonly #local = new MemoryGateEvents();
  readonly #origin = randomUUID();
  readonly #channel: string;
  readonly #options: PostgresEventsOptions;
  readonly #publisher: Pool;
  #listener: Client | undefined;
  #reconnectDelay: number;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #healthTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #connected = false;

  constructor(options: PostgresEventsOptions) {
    this.#options = options;
    this.#channel = channelFor(options.schema ?? DEFAULT_SCHEMA);
    this.#reconnectDelay = options.reconnectDelayMs ?? 100;
    // NOTIFY needs no transaction and holds no locks: one short-lived connection is plenty.
    this.#publisher = createDatabase({ connectionString: options.connectionString, statementTimeoutMs: 5_000, pool: { max: 1, ...options.client } }).pool;
  }

  /** The NOTIFY channel of this schema (an identifier: bounded, whatever the schema name). */
  get channel(): string {
    return this.#channel;
  }

  /** Whether the listening connection is up (other replicas' events arrive). */
  get listening(): boolean {
    return this.#connected;
  }

  subscribe(listener: GateEventListener): () => void {
    return this.#local.subscribe(listener);
  }

  publish(event: GateEvent): void {
    this.#local.deliver(event);
    if (this.#closed) return;
    // Never awaited by the gate: a slow or unreachable database delays nobody's operation.
    this.#publisher.query('SELECT pg_notify($1, $2)', [this.#channel, encodePayload(this.#origin, event)]).catch(() => {
      // Lost for the other replicas; their periodic re-read of the store picks the change up.
    });
  }

  /** Connects the listener; resolves once LISTEN is in place (or rejects if the first attempt fails). */
  async start(): Promise<void> {
    await this.#connect();
    const every = this.#options.healthCheckMs ?? 15_000;
    this.#healthTimer = setInterval(() => void this.#checkHealth(), every);
    this.#healthTimer.unref();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    clearInterval(this.#healthTimer);
    const listener = this.#listener;
    this.#listener = undefined;
    this.#connected = false;
    await Promise.allSettled([listener?.end(), this.#publisher.end()]);
  }

  async #connect(): Promise<void> {
    const client = new Client({
      ...this.#options.client,
      connectionString: this.#options.connectionString,
      connectionTimeoutMillis: 5_000,
      query_timeout: 5_000,
      keepAlive: true,
    });
    const lost = () => this.#lost(client);
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => {
      if (message.channel !== this.#channel || message.payload === undefined) return;
      const event = decodePayload(this.#origin, message.payload);
      if (event !== undefined) this.#local.deliver(event);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${escapeIdentifier(this.#channel)}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    const reconnected = this.#listener !== undefined || this.#reconnectTimer !== undefined;
    this.#listener = client;
    this.#connected = true;
    this.#reconnectDelay = this.#options.reconnectDelayMs ?? 100;
    this.#reconnectTimer = undefined;
    // Whatever was published while we were not listening is gone: everyone waiting looks again.
    if (reconnected) this.#local.deliver({ type: 'resync', at: Date.now() } satisfies DeliveredEvent);
  }

  #lost(client: Client): void {
    if (this.#closed || this.#listener !== client) return;
    this.#connected = false;
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer !== undefined) return;
    const delay = this.#reconnectDelay;
    this.#reconnectDelay = Math.min(delay * 2, MAX_RECONNECT_DELAY_MS);
    this.#reconnectTimer = setTimeout(() => {
      this.#connect().catch(() => {
        this.#reconnectTimer = undefined;
        this.#scheduleReconnect();
      });
    }, delay);
    this.#reconnectTimer.unref();
  }

  async #checkHealth(): Promise<void> {
    const client = this.#listener;
    if (client === undefined || !this.#connected) return;
    try {
      await client.query('SELECT 1');
    } catch {
      this.#lost(client);
    }
  }
}

/** Opens the bus and starts listening before returning, so no event published after it is missed. */
export async function openPostgresEvents(options: PostgresEventsOptions): Promise<PostgresGateEvents> {
  quoteSchema(options.schema ?? DEFAULT_SCHEMA);
  const events = new PostgresGateEvents(options);
  try {
    await events.start();
  } catch (error) {
    await events.close();
    throw error;
  }
  return events;
}

/** `countersign_events_` + a digest of the schema: distinct per schema, always under 63 bytes. */
function channelFor(schema: string): string {
  return `countersign_events_${createHash('sha256').update(schema).digest('hex').slice(0, 24)}`;
}
