import { Client } from 'pg';
import { vi } from 'vitest';

/** What one step sent to the database: its statements and the round trips they took. */
export interface StepCost {
  statements: string[];
  trips: number;
}

/**
 * Counts statements and round trips from now on (restored by vi.restoreAllMocks()). A
 * round trip starts when a statement is sent with none in flight: statements pipelined
 * behind one still in flight share its round trip. Statements pg-pool sends itself (with
 * a callback, no promise) are not counted. `measure` runs one step and returns its cost.
 */
export function countRoundTrips(): <T>(step: () => Promise<T>) => Promise<{ value: T } & StepCost> {
  const sent: string[] = [];
  let inFlight = 0;
  let trips = 0;
  const query = Client.prototype.query;
  vi.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
    const answer = (query as (...a: unknown[]) => unknown).apply(this, args) as Promise<unknown> | undefined;
    if (answer === undefined) return answer as never;
    const config = args[0] as string | { text: string };
    sent.push((typeof config === 'string' ? config : config.text).replace(/\s+/g, ' ').trim());
    if (inFlight === 0) trips++;
    inFlight++;
    answer.then(
      () => inFlight--,
      () => inFlight--,
    );
    return answer as never;
  });
  return async (step) => {
    sent.length = 0;
    trips = 0;
    const value = await step();
    return { value, statements: [...sent], trips };
  };
}
