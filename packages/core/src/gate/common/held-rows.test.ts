import { describe, expect, it } from 'vitest';
import type { GateDeps } from '../config.ts';
import { HeldRows } from './held-rows.ts';

const gate = () => ({}) as GateDeps;

describe('HeldRows: what a gate holds for its next step', () => {
  it('holds per gate, and each entry is taken once', () => {
    const held = new HeldRows<string>({ entries: 4, weight: 100 }, (rows) => rows.length);
    const [one, other] = [gate(), gate()];
    held.hold(one, 'p1', 'abc');
    expect(held.take(other, 'p1')).toBeUndefined();
    expect(held.take(one, 'p1')).toBe('abc');
    expect(held.take(one, 'p1')).toBeUndefined();
  });

  it('forgets the oldest past the entry limit, and a forgotten entry is gone', () => {
    const held = new HeldRows<string>({ entries: 2, weight: 100 }, (rows) => rows.length);
    const one = gate();
    for (const id of ['p1', 'p2', 'p3']) held.hold(one, id, id);
    expect(held.take(one, 'p1')).toBeUndefined();
    held.forget(one, 'p2');
    expect(held.take(one, 'p2')).toBeUndefined();
    expect(held.take(one, 'p3')).toBe('p3');
  });

  it('keeps the total weight within its budget: older entries go, and rows heavier than the budget are never held', () => {
    const held = new HeldRows<string>({ entries: 100, weight: 10 }, (rows) => rows.length);
    const one = gate();
    held.hold(one, 'p1', 'aaaa');
    held.hold(one, 'p2', 'bbbb');
    held.hold(one, 'p3', 'cccc');
    expect(held.take(one, 'p1')).toBeUndefined();
    expect(held.take(one, 'p2')).toBe('bbbb');
    held.hold(one, 'p4', 'x'.repeat(11));
    expect(held.take(one, 'p4')).toBeUndefined();
    // Holding the same id again replaces it, weight included: p3 stays held beside it.
    held.hold(one, 'p5', 'dd');
    held.hold(one, 'p5', 'eeee');
    expect(held.take(one, 'p3')).toBe('cccc');
    expect(held.take(one, 'p5')).toBe('eeee');
  });

  it('a row too heavy to hold replaces nothing: the id it names is no longer held', () => {
    const held = new HeldRows<string>({ entries: 100, weight: 10 }, (rows) => rows.length);
    const one = gate();
    held.hold(one, 'p1', 'small');
    held.hold(one, 'p1', 'x'.repeat(20));
    expect(held.take(one, 'p1')).toBeUndefined();
  });
});
