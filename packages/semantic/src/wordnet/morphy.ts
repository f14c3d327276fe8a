import type { Wordnet, WordnetPos } from './wordnet.ts';

/**
 * WordNet's own detachment rules (morphy), without its exception lists: the base forms of an
 * inflected word that exist in the dictionary for that part of speech.
 */
const RULES: Record<WordnetPos, readonly (readonly [string, string])[]> = {
  n: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  v: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  a: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
  r: [],
};

export function baseForms(wordnet: Wordnet, word: string, pos: WordnetPos): string[] {
  if (wordnet.synsets(word, pos).length > 0) return [word];
  const out: string[] = [];
  for (const [suffix, replacement] of RULES[pos]) {
    if (!word.endsWith(suffix) || word.length <= suffix.length + 1) continue;
    const base = word.slice(0, word.length - suffix.length) + replacement;
    if (!out.includes(base) && wordnet.synsets(base, pos).length > 0) out.push(base);
  }
  // Doubled final consonant: "running" → "run", "stopped" → "stop".
  if (pos === 'v') {
    const doubled = /^(.*([b-df-hj-np-tv-z]))\2(?:ing|ed)$/.exec(word);
    if (doubled?.[1] !== undefined && wordnet.synsets(doubled[1], pos).length > 0 && !out.includes(doubled[1])) out.push(doubled[1]);
  }
  return out;
}
