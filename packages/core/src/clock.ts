/**
 * Time source, injected everywhere a decision depends on "now" (invariant 8).
 * Returns milliseconds since the Unix epoch.
 */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** A clock tests can move by hand. */
export function manualClock(startMs = Date.UTC(2026, 0, 1)): Clock & {
  set(ms: number): void;
  advance(ms: number): void;
} {
  let now = startMs;
  const clock = (() => now) as Clock & { set(ms: number): void; advance(ms: number): void };
  clock.set = (ms) => {
    now = ms;
  };
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}
