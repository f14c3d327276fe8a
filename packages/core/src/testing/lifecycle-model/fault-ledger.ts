import type { AuditEvent } from '../../audit/types.ts';
import type { DefinitionStore } from '../../catalog/types.ts';
import type { LedgerStore } from '../../ledger/types.ts';
import type { Fault } from './actions.ts';

/** The store methods that write (LedgerStore's, then DefinitionStore's): a lost reply on one of them means the write committed. */
export const LEDGER_WRITES: ReadonlySet<string> = new Set([
  'recordDefinition',
  'replacePin',
  'putPin',
  'register',
  'recordProposal',
  'recordProposals',
  'createApprovalRequest',
  'addDecision',
  'recordEdit',
  'withdrawApproval',
  'revokeApproval',
  'consume',
  'recordResult',
  'recordProviderOutput',
]);

export class InjectedFault extends Error {
  readonly code = 'injected_fault';
  readonly method: string;
  readonly kind: Fault['kind'];
  constructor(method: string, kind: Fault['kind']) {
    super(`injected ${kind} fault at ${method}`);
    this.method = method;
    this.kind = kind;
  }
}

/** What one store call did under a fault (for the run's counts). */
export interface InjectedRecord {
  method: string;
  kind: Fault['kind'];
}

/**
 * A LedgerStore that forwards to `target` and can fail one call: the `nth` store call
 * after `arm(fault)`. Also the hook where a controlled scheduler decides which of
 * several concurrent actions reaches the store next (`beforeCall`). `auditLog` is the
 * target's, so the gate still writes ledger and audit in one transaction. The definition
 * store (pins, registrations) is wrapped the same way (`wrapDefinitions`), on the same
 * count: a definition step's faults land on any of its store calls, ledger or definitions.
 */
export class FaultLedger {
  readonly store: LedgerStore;
  #fault: Fault | undefined;
  #calls = 0;
  /** Every fault injected, in order (shared by the replicas of one system when given). */
  readonly injected: InjectedRecord[];
  beforeCall: ((method: string) => Promise<void>) | undefined;

  readonly target: LedgerStore;

  constructor(target: LedgerStore, injected: InjectedRecord[] = []) {
    this.target = target;
    this.injected = injected;
    this.store = this.#wrap(target);
  }

  /** `definitions` behind the same faults and scheduling as the ledger. */
  wrapDefinitions(definitions: DefinitionStore): DefinitionStore {
    return this.#wrap(definitions);
  }

  #wrap<T extends object>(target: T): T {
    return new Proxy(target, {
      get: (t, property, receiver) => {
        const value = Reflect.get(t, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string' || property === 'close') return value;
        return (...args: unknown[]) => this.#call(property, (...a: unknown[]) => (value as (...b: unknown[]) => Promise<unknown>).apply(t, a), args);
      },
    });
  }

  /** Fails the `fault.nth` store call from now on (once). */
  arm(fault: Fault | undefined): void {
    this.#fault = fault;
    this.#calls = 0;
  }

  async #call(method: string, fn: (...a: unknown[]) => Promise<unknown>, args: unknown[]): Promise<unknown> {
    if (this.beforeCall !== undefined) await this.beforeCall(method);
    const fault = this.#fault;
    const index = this.#calls++;
    if (fault === undefined || index !== fault.nth) return fn(...args);
    this.#fault = undefined;
    this.injected.push({ method, kind: fault.kind });
    if (fault.kind === 'before') throw new InjectedFault(method, 'before');
    if (fault.kind === 'rollback') {
      // A call without an audit part (a read) has nothing to roll back: it fails before, as `before`.
      const failing = args.map(failingAudit);
      if (failing.every((arg, i) => arg === args[i])) throw new InjectedFault(method, 'before');
      return fn(...failing);
    }
    await fn(...args);
    throw new InjectedFault(method, 'lost_reply');
  }
}

/**
 * The audit part of a write that throws inside the transaction, so the store rolls the write
 * back. Records built before the write (a decision's `AuditByStatus`) become a record the
 * audit log refuses, whatever status the decision leads to.
 */
function failingAudit(arg: unknown): unknown {
  const fail = () => {
    throw new InjectedFault('audit', 'rollback');
  };
  if (typeof arg === 'function') return fail;
  if (typeof arg !== 'object' || arg === null) return arg;
  const audit = (arg as { audit?: unknown }).audit;
  if (typeof audit === 'function') return { ...arg, audit: fail };
  if (typeof audit === 'object' && audit !== null && 'byStatus' in audit) {
    const byStatus = Object.fromEntries(Object.keys((audit as { byStatus: object }).byStatus).map((status) => [status, [UNAPPENDABLE]]));
    return { ...arg, audit: { byStatus } };
  }
  return arg;
}

/** An audit event no audit log appends (its time is not a number). */
const UNAPPENDABLE: AuditEvent = { type: 'decision', at: Number.NaN };
