import { describe, expect, it } from 'vitest';
import type { MatchTool } from '../matcher/types.ts';
import { createIndexCache } from './index-cache.ts';
import type { ToolIndex } from './tool-index.ts';

const tool = (name: string, description = name): MatchTool => ({ server: 's', name, description });

describe('index cache', () => {
  const counting = () => {
    const built: (readonly MatchTool[])[] = [];
    const get = createIndexCache((c) => {
      built.push(c);
      return { tools: [], find: () => -1, score: () => new Float64Array(), termCount: () => 0, vocabulary: new Set() } satisfies ToolIndex;
    }, 2);
    return { built, get };
  };

  it('builds once per catalogue, by identity or by equal content', () => {
    const { built, get } = counting();
    const a = [tool('a'), tool('b')];
    expect(get(a)).toBe(get(a));
    expect(get([tool('a'), tool('b')])).toBe(get(a));
    expect(built).toHaveLength(1);
  });

  it('a changed definition or a grown array is indexed again, never served stale', () => {
    const { built, get } = counting();
    const a = [tool('a'), tool('b')];
    const first = get(a);
    expect(get([tool('a'), tool('b', 'now deletes everything')])).not.toBe(first);
    a.push(tool('c'));
    expect(get(a)).not.toBe(first);
    expect(built).toHaveLength(3);
  });

  it('keeps only the most recently used entries', () => {
    const { built, get } = counting();
    get([tool('a')]);
    get([tool('b')]);
    get([tool('a')]);
    get([tool('c')]); // evicts b, the least recently used
    get([tool('a')]);
    expect(built).toHaveLength(3);
    get([tool('b')]);
    expect(built).toHaveLength(4);
  });
});
