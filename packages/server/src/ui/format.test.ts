import { describe, expect, it } from 'vitest';
import { formatDuration, formatTime, prettyArguments, relativeTo } from './format.ts';

describe('format', () => {
  it('times are UTC and unambiguous', () => {
    expect(formatTime(Date.UTC(2026, 5, 1, 12, 10, 5))).toBe('2026-06-01 12:10:05 UTC');
  });

  it('durations read naturally', () => {
    expect([45_000, 600_000, 3_900_000, 7_200_000, 187_200_000, 172_800_000].map(formatDuration)).toEqual([
      '45 s',
      '10 min',
      '1 h 5 min',
      '2 h',
      '2 d 4 h',
      '2 d',
    ]);
    const now = 1_000_000;
    expect(relativeTo(now + 600_000, now)).toBe('in 10 min');
    expect(relativeTo(now - 120_000, now)).toBe('2 min ago');
    expect(relativeTo(now, now)).toBe('just now');
  });

  it('pretty arguments are the canonical JSON, indented', () => {
    expect(prettyArguments('{"a":[1,{"b":"<x>"}],"c":1e+21}')).toBe('{\n  "a": [\n    1,\n    {\n      "b": "<x>"\n    }\n  ],\n  "c": 1e+21\n}');
  });

  it('pretty arguments show hidden characters as JSON escapes of the same value', () => {
    const canonical = '{"to":"acct-\u202E4321\u202C"}';
    expect(prettyArguments(canonical)).toBe('{\n  "to": "acct-\\u202E4321\\u202C"\n}');
    expect(JSON.parse(prettyArguments(canonical))).toEqual(JSON.parse(canonical));
  });
});
