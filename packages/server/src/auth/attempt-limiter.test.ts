import { describe, expect, it } from 'vitest';
import { AttemptLimiter, type ThrottleRule } from './attempt-limiter.ts';

const MINUTE = 60_000;
const RULE: ThrottleRule = { maxFailures: 3, windowMs: 15 * MINUTE, lockoutMs: MINUTE, maxLockoutMs: 5 * MINUTE };

function failTimes(limiter: AttemptLimiter, key: string, now: number, times: number) {
  for (let i = 0; i < times; i += 1) limiter.recordFailure(key, now);
}

describe('AttemptLimiter', () => {
  it('locks a key after maxFailures within the window, and only that key', () => {
    const limiter = new AttemptLimiter(RULE, 100);
    failTimes(limiter, 'a', 0, 2);
    expect(limiter.retryAfterMs('a', 0)).toBe(0);
    limiter.recordFailure('a', 1000);
    expect(limiter.retryAfterMs('a', 1000)).toBe(MINUTE);
    expect(limiter.retryAfterMs('a', 1000 + MINUTE - 1)).toBe(1);
    expect(limiter.retryAfterMs('a', 1000 + MINUTE)).toBe(0);
    expect(limiter.retryAfterMs('b', 1000)).toBe(0);
  });

  it('failures older than the window do not count', () => {
    const limiter = new AttemptLimiter(RULE, 100);
    failTimes(limiter, 'a', 0, 2);
    limiter.recordFailure('a', 15 * MINUTE);
    expect(limiter.retryAfterMs('a', 15 * MINUTE)).toBe(0);
  });

  it('each further lockout doubles, up to the maximum; a quiet window forgives', () => {
    const limiter = new AttemptLimiter(RULE, 100);
    let now = 0;
    const lockouts: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      failTimes(limiter, 'a', now, 3);
      const wait = limiter.retryAfterMs('a', now);
      lockouts.push(wait / MINUTE);
      now += wait;
    }
    expect(lockouts).toEqual([1, 2, 4, 5, 5]);
    // 15 quiet minutes after the last lockout ended: back to the first lockout.
    now += 15 * MINUTE;
    failTimes(limiter, 'a', now, 3);
    expect(limiter.retryAfterMs('a', now)).toBe(MINUTE);
  });

  it('a failure reported while locked does not extend the lockout', () => {
    const limiter = new AttemptLimiter(RULE, 100);
    failTimes(limiter, 'a', 0, 3);
    failTimes(limiter, 'a', 30_000, 10);
    expect(limiter.retryAfterMs('a', 30_000)).toBe(30_000);
  });

  it('reset forgets the key', () => {
    const limiter = new AttemptLimiter(RULE, 100);
    failTimes(limiter, 'a', 0, 3);
    limiter.reset('a');
    expect(limiter.retryAfterMs('a', 0)).toBe(0);
    expect(limiter.size).toBe(0);
  });

  it('tracks at most maxKeys keys, forgetting the least recently failing first', () => {
    const limiter = new AttemptLimiter(RULE, 3);
    failTimes(limiter, 'a', 0, 2);
    failTimes(limiter, 'b', 1, 2);
    failTimes(limiter, 'c', 2, 2);
    // a's third failure locks it and makes it the most recent; d then pushes out b, the oldest.
    limiter.recordFailure('a', 3);
    limiter.recordFailure('d', 4);
    expect(limiter.size).toBe(3);
    expect(limiter.retryAfterMs('a', 5)).toBeGreaterThan(0);
    // Had b been kept, this would be its third failure and lock it.
    limiter.recordFailure('b', 5);
    expect(limiter.retryAfterMs('b', 5)).toBe(0);
    for (let i = 0; i < 10_000; i += 1) limiter.recordFailure(`junk-${i}`, 10);
    expect(limiter.size).toBe(3);
  });
});
