// How the guarded-call machine sends each exchange with the gate; its own file so that
// unknown-outcome.ts (which the machine calls) can take it without importing the machine.

/** The machine's exchanges with the gate: a decision read, the token, authorize (which spends the approval), a call's status. */
export type GateExchange = 'decision' | 'token' | 'authorize' | 'call-status';

/**
 * Sends one exchange of the machine. A durable-execution engine (DBOS) records each as a
 * step, so a recovered workflow replays the same answers. It must send `authorize` at
 * most once (never retry it: the approval may be spent even when the answer is lost);
 * reads may be retried. A thrown error is the exchange's failure, as from the port.
 */
export type GateStep = <T>(exchange: GateExchange, send: () => Promise<T>) => Promise<T>;

export const directGateStep: GateStep = (_exchange, send) => send();
