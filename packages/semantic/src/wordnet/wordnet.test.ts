import { describe, expect, it } from 'vitest';
import { createConceptLookup } from './concepts.ts';
import { createGlossLookup } from './glosses.ts';
import { baseForms } from './morphy.ts';
import { loadWordnet } from './wordnet.ts';

describe('WordNet', () => {
  const wordnet = loadWordnet();

  it('is loaded once per process', () => {
    expect(loadWordnet()).toBe(wordnet);
    expect(wordnet.bytes).toBeGreaterThan(20_000_000);
  });

  it('finds lemmas by binary search, first and last entries included, and nothing for unknown words', () => {
    expect(wordnet.synsets('delete', 'v').length).toBeGreaterThan(0);
    expect(wordnet.synsets('repository', 'n').length).toBeGreaterThan(0);
    expect(wordnet.synsets('aah', 'v').length).toBeGreaterThan(0);
    expect(wordnet.synsets('zzzzzz', 'n')).toEqual([]);
    expect(wordnet.synsets('', 'n')).toEqual([]);
    expect(wordnet.synsets('  1 This software', 'n')).toEqual([]);
  });

  it('reads hypernyms at a synset offset, and nothing at a bad offset', () => {
    const [removeSense] = wordnet.synsets('remove', 'v');
    const deleteHypernyms = wordnet.synsets('delete', 'v').flatMap((o) => wordnet.hypernyms('v', o));
    expect(deleteHypernyms).toContain(`v:${removeSense}`);
    expect(wordnet.hypernyms('v', -1)).toEqual([]);
    expect(wordnet.hypernyms('v', Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('reads derivationally related forms', () => {
    const summary = wordnet.synsets('summary', 'n');
    const related = wordnet.synsets('summarize', 'v').flatMap((o) => wordnet.derivations('v', o));
    expect(related.some((key) => summary.some((o) => key === `n:${o}`))).toBe(true);
  });

  it('morphy finds base forms', () => {
    expect(baseForms(wordnet, 'removing', 'v')).toContain('remove');
    expect(baseForms(wordnet, 'running', 'v')).toContain('run');
    expect(baseForms(wordnet, 'repositories', 'n')).toContain('repository');
    expect(baseForms(wordnet, 'qwertyuiop', 'n')).toEqual([]);
  });

  it('words for the same action share a concept; unrelated words do not', () => {
    const concepts = createConceptLookup(wordnet, { senses: 1, hypernyms: true });
    const shared = (a: string, b: string) => concepts(a).some((c) => concepts(b).includes(c));
    expect(shared('removing', 'delete')).toBe(true);
    expect(shared('summarize', 'export')).toBe(false);
  });

  it('reads a synset\'s gloss and topic, and nothing at a bad offset', () => {
    const hotel = wordnet.synsets('hotel', 'n')[0]!;
    expect(wordnet.gloss('n', hotel)).toMatch(/building where travelers can pay for lodging/);
    // Lexicographer file 6 is noun.artifact.
    expect(wordnet.lexFile('n', hotel)).toBe(6);
    expect(wordnet.gloss('n', -1)).toBe('');
    expect(wordnet.lexFile('n', Number.NaN)).toBe(-1);
  });

  it('a word\'s definition stems leave out the word itself and definitional filler', () => {
    const glossOf = createGlossLookup(wordnet, { senses: 1 });
    const hotel = glossOf('hotel');
    expect(hotel).toEqual(expect.arrayContaining(['build', 'travel', 'lodg']));
    expect(hotel).not.toContain('hotel');
    expect(glossOf('qqqq')).toEqual([]);
  });
});
