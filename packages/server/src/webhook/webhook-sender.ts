import { ServerConfigError, type WebhookOptions } from '../app/options.ts';
import { abortableSleep } from '../ops/abortable-sleep.ts';
import { SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER } from './signature.ts';

export interface DeliveryReport {
  eventId: string;
  delivered: boolean;
  attempts: number;
  /** HTTP status of the last attempt, when there was a response. */
  lastStatus?: number | undefined;
}

export interface WebhookSenderOptions extends WebhookOptions {
  /** Wall clock for the signed timestamp (receivers compare it with theirs). */
  now?: (() => number) | undefined;
  onReport?: ((report: DeliveryReport) => void) | undefined;
}

const MAX_DELAY_MS = 60_000;

/**
 * Signed, retried delivery of webhook events. `send` returns at once: delivery runs
 * in the background with exponential backoff and a bounded number of attempts, so a
 * slow or failing receiver never holds up the request that caused the event.
 */
export class WebhookSender {
  readonly #url: string;
  readonly #secret: string;
  readonly #maxAttempts: number;
  readonly #baseDelayMs: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #onReport: ((report: DeliveryReport) => void) | undefined;
  readonly #stop = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: WebhookSenderOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new ServerConfigError('invalid_webhook', 'webhook.url must be an absolute http(s) URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ServerConfigError('invalid_webhook', 'webhook.url must use http or https');
    }
    if (typeof options.secret !== 'string' || options.secret.length === 0) {
      throw new ServerConfigError('invalid_webhook', 'webhook.secret must not be empty');
    }
    if (options.format !== undefined && options.format !== 'countersign' && options.format !== 'slack') {
      throw new ServerConfigError('invalid_webhook', 'webhook.format must be "countersign" or "slack"');
    }
    this.#url = url.href;
    this.#secret = options.secret;
    this.#maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 5));
    this.#baseDelayMs = Math.max(0, options.baseDelayMs ?? 500);
    this.#timeoutMs = Math.max(1, options.timeoutMs ?? 5000);
    this.#now = options.now ?? Date.now;
    this.#onReport = options.onReport;
  }

  /** Queues one event; the same body (and event id) is sent on every attempt. */
  send(eventId: string, payload: unknown): void {
    if (this.#stop.signal.aborted) return;
    const body = JSON.stringify(payload);
    const delivery = this.#deliver(eventId, body).finally(() => this.#inFlight.delete(delivery));
    this.#inFlight.add(delivery);
  }

  /** Resolves when every queued delivery has finished (delivered or given up). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Stops retrying, aborts attempts in flight, and waits for them to wind down. */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.idle();
  }

  async #deliver(eventId: string, body: string): Promise<void> {
    let lastStatus: number | undefined;
    let made = 0;
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      if (this.#stop.signal.aborted) break;
      const timestamp = String(Math.floor(this.#now() / 1000));
      made = attempt;
      try {
        const response = await fetch(this.#url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'countersign-webhook/1',
            [TIMESTAMP_HEADER]: timestamp,
            [SIGNATURE_HEADER]: signWebhook(this.#secret, timestamp, body),
            'Countersign-Event-Id': eventId,
            'Countersign-Delivery-Attempt': String(attempt),
          },
          body,
          redirect: 'error',
          signal: AbortSignal.any([this.#stop.signal, AbortSignal.timeout(this.#timeoutMs)]),
        });
        lastStatus = response.status;
        await response.body?.cancel();
        if (response.ok) {
          this.#report({ eventId, delivered: true, attempts: attempt, lastStatus });
          return;
        }
      } catch {
        // Network error or timeout: retried like a failed status.
      }
      if (attempt < this.#maxAttempts) await abortableSleep(Math.min(this.#baseDelayMs * 2 ** (attempt - 1), MAX_DELAY_MS), this.#stop.signal);
    }
    this.#report({ eventId, delivered: false, attempts: made, lastStatus });
  }

  #report(report: DeliveryReport): void {
    try {
      this.#onReport?.(report);
    } catch {
      // A reporting hook must not break delivery.
    }
  }
}
