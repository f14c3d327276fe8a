import type { DeliveredEvent } from '@countersign/core/events';
import type { Gate } from '@countersign/core/gate';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PENDING_COUNT_LIMIT } from './pending-requests.ts';
import type { StoreObserver } from './timed-ledger.ts';

/**
 * The service's Prometheus metrics, in a registry of their own (several apps in one
 * process, as in tests, never share counters). Labels are small closed sets: reason
 * codes, verdicts, decisions, store operations. Never tool names, principals or ids,
 * which are unbounded and would leak who does what to whoever can scrape.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly #proposals = this.#counter('countersign_proposals_total', 'Calls recorded (proposed), by policy verdict.', ['verdict']);
  readonly #approvalRequests = this.#counter('countersign_approval_requests_total', 'Approval requests opened.', []);
  readonly #decisions = this.#counter('countersign_decisions_total', 'Approver decisions: approve, deny, edit (approve-with-edits), revoke and withdraw (an approver takes back their own approval).', ['decision']);
  readonly #dispatches = this.#counter('countersign_dispatches_total', 'Calls authorized to run (approval consumed, or allowed by policy).', []);
  readonly #completions = this.#counter('countersign_completions_total', 'Results recorded, by status.', ['status']);
  readonly #rejections = this.#counter('countersign_rejections_total', 'Refused proposals, edits, authorizations, completions and relays, by stage and reason code.', ['stage', 'reason']);
  readonly #webhookDeliveries = this.#counter(
    'countersign_webhook_deliveries_total',
    'Webhook deliveries finished, by format (countersign, slack) and outcome (delivered, or failed after the last retry).',
    ['format', 'outcome'],
  );
  readonly #authFailures = this.#counter(
    'countersign_auth_failures_total',
    'Refused authentications: a wrong approver id or password at sign-in (password), an invalid bearer token (bearer), an attempt refused while locked out (throttled).',
    ['kind'],
  );
  readonly #approvalWait = new Histogram({
    name: 'countersign_approval_wait_seconds',
    help: 'Time from an approval request being opened to each decision on it, by decision.',
    labelNames: ['decision'],
    buckets: [1, 5, 15, 30, 60, 120, 300, 900, 1800, 3600, 4 * 3600, 24 * 3600],
    registers: [this.registry],
  });
  readonly #storeLatency = new Histogram({
    name: 'countersign_store_operation_seconds',
    help: 'Ledger store operations, by operation and outcome.',
    labelNames: ['operation', 'outcome'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly #http = new Histogram({
    name: 'countersign_http_request_duration_seconds',
    help: 'HTTP requests, by method, route template (never ids) and status class; its _count is the request count.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30],
    registers: [this.registry],
  });
  readonly #storeUp = new Gauge({
    name: 'countersign_store_up',
    help: 'Whether the last readiness probe (on /readyz and on each scrape) reached the store: 1 yes, 0 no.',
    registers: [this.registry],
  });

  readonly #pendingRequests = new Gauge({
    name: 'countersign_pending_requests',
    help: `Approval requests waiting for a decision (pending, not expired), read from the store on each scrape; counted up to ${PENDING_COUNT_LIMIT}, so that value means at least as many.`,
    registers: [this.registry],
  });

  /** With `processMetrics`, also the client library's default process metrics (CPU, memory, event loop). */
  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics === true) collectDefaultMetrics({ register: this.registry });
  }

  /** Feed to `timedLedger`. */
  readonly observeStore: StoreObserver = (operation, seconds, outcome) => {
    this.#child(this.#storeLatency, operation, outcome).observe(seconds);
  };

  /** Feed to `requestLog`. Long-polls and event streams are counted too, with their long durations. */
  readonly observeHttp = (method: string, route: string, status: number, seconds: number): void => {
    this.#child(this.#http, KNOWN_METHODS.has(method) ? method : 'OTHER', route, `${Math.floor(status / 100)}xx`).observe(seconds);
  };

  countAuthFailure(kind: 'password' | 'bearer' | 'throttled'): void {
    this.#inc(this.#authFailures, kind);
  }

  countWebhookDelivery(format: string, outcome: 'delivered' | 'failed'): void {
    this.#inc(this.#webhookDeliveries, format, outcome);
  }

  setStoreUp(up: boolean): void {
    this.#storeUp.set(up ? 1 : 0);
  }

  setPendingRequests(count: number): void {
    this.#pendingRequests.set(count);
  }

  /**
   * Counts the gate's lifecycle events. Events from other replicas are theirs to count
   * (each replica exports its own; Prometheus sums them), so only local ones are.
   * The wait histogram reads the request's opening time from the store: the decision
   * event does not carry it, and a request opened on another replica is not in memory here.
   */
  watch(gate: Gate): () => void {
    // Synchronous for every event but decisions: a proposal or dispatch costs no promise here.
    return gate.events.subscribe((event) => {
      if (event.remote === true) return;
      this.#count(event);
      const waited = waitOf(event);
      if (waited !== undefined) return this.#observeWait(gate, waited, event.at);
    });
  }

  async #observeWait(gate: Gate, waited: { requestId: string; decision: string }, at: number): Promise<void> {
    const found = await gate.approvals.view(waited.requestId).catch(() => undefined);
    if (found?.ok === true) this.#approvalWait.observe({ decision: waited.decision }, Math.max(0, at - found.view.request.createdAt) / 1000);
  }

  // Bound children per metric and label values: prom-client otherwise hashes the label object on every update.
  // Keyed by the metric object, then by the label value(s): no per-update string building for one label.
  readonly #children = new Map<Counter | Histogram, Map<string, unknown>>();
  #child<M extends Counter | Histogram>(metric: M, ...values: string[]): ReturnType<M['labels']> {
    let byValues = this.#children.get(metric);
    if (byValues === undefined) {
      byValues = new Map();
      this.#children.set(metric, byValues);
    }
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    let child = byValues.get(key);
    if (child === undefined) {
      child = metric.labels(...values);
      byValues.set(key, child);
    }
    return child as ReturnType<M['labels']>;
  }

  #inc(counter: Counter, ...values: string[]): void {
    this.#child(counter, ...values).inc();
  }

  #count(event: DeliveredEvent): void {
    switch (event.type) {
      case 'proposed':
        this.#inc(this.#proposals, event.verdict);
        return;
      case 'approval_requested':
        this.#approvalRequests.inc();
        return;
      case 'decided':
        this.#inc(this.#decisions, event.decision);
        return;
      case 'edited':
        this.#inc(this.#decisions, 'edit');
        return;
      case 'revoked':
        this.#inc(this.#decisions, 'revoke');
        return;
      case 'withdrawn':
        this.#inc(this.#decisions, 'withdraw');
        return;
      case 'authorized':
        this.#dispatches.inc();
        return;
      case 'completed':
        this.#inc(this.#completions, event.status);
        return;
      case 'rejected':
        this.#inc(this.#rejections, event.stage, event.reason);
        return;
      default:
        return;
    }
  }

  #counter(name: string, help: string, labelNames: string[]): Counter {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function waitOf(event: DeliveredEvent): { requestId: string; decision: string } | undefined {
  if (event.type === 'decided') return { requestId: event.requestId, decision: event.decision };
  if (event.type === 'edited') return { requestId: event.requestId, decision: 'edit' };
  return undefined;
}
