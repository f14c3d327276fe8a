import { describe, expect, it } from 'vitest';
import { formatPath } from './format-path.ts';

describe('formatPath', () => {
  it('renders paths the way an operator reads them', () => {
    expect(formatPath([])).toBe('(root)');
    expect(formatPath(['rules', 2, 'verdict'])).toBe('rules[2].verdict');
    expect(formatPath(['rules', 0, 'when', 'properties', 'a-b'])).toBe('rules[0].when.properties["a-b"]');
    expect(formatPath(['<<'])).toBe('["<<"]');
    expect(formatPath([0, 'x'])).toBe('[0].x');
  });
});
