import type { MatchTool } from '../matcher/types.ts';
import { words } from '../text/tokenize.ts';
import { baseForms } from '../wordnet/morphy.ts';
import { loadWordnet, type Wordnet } from '../wordnet/wordnet.ts';

/** What a reviewer is shown about a tool definition before pinning it. */
export type DefinitionCheck =
  | { ok: true }
  | {
      ok: false;
      reason: 'broad_description';
      /** Short items in the longest enumeration of the description. */
      items: number;
      /** Distinct WordNet topics (noun lexicographer files) those items fall in. */
      topics: number;
      /** The first items, to show the reviewer what the description lists. */
      sample: string[];
    };

/** An enumeration at least this long, over at least this many topics, is a list of keywords, not a description. */
export const BROAD_LIST_ITEMS = 12;
export const BROAD_LIST_TOPICS = 4;
/** An item of an enumeration: a short noun phrase, not a clause. */
const MAX_ITEM_WORDS = 3;

/** The longest run of consecutive short items separated by commas, "or", "and" or slashes, in one sentence. */
function longestEnumeration(description: string): string[] {
  let best: string[] = [];
  for (const sentence of description.split(/[.;:!?\n]+/)) {
    let run: string[] = [];
    for (const item of sentence.split(/,|\bor\b|\band\b|\//i).map((s) => s.trim())) {
      if (item === '') continue;
      if (item.split(/\s+/).length <= MAX_ITEM_WORDS) {
        run.push(item);
        if (run.length > best.length) best = run;
      } else run = [];
    }
  }
  return best;
}

/** Topic of an item: the lexicographer file of its last noun's most frequent sense. */
function topicOf(wordnet: Wordnet, item: string): number | undefined {
  for (const w of words(item).reverse()) {
    const base = baseForms(wordnet, w, 'n')[0];
    const offset = base === undefined ? undefined : wordnet.synsets(base, 'n')[0];
    if (offset !== undefined) return wordnet.lexFile('n', offset);
  }
  return undefined;
}

/**
 * Flags a description that lists keywords from many unrelated topics ("email, calendar, files,
 * music, flights, payments, …"): such a tool shares a word with almost any task, so a lexical
 * matcher would let it through for anything. Checked when a definition is pinned (so the
 * reviewer sees it) and by the local matcher, which then ranks the tool on its name and
 * parameters only. A plain description of one capability never has such a list.
 */
export function checkDefinition(tool: MatchTool, wordnet: Wordnet = loadWordnet()): DefinitionCheck {
  const description = typeof tool.description === 'string' ? tool.description : '';
  // The matcher asks on every decision: a long description is read once.
  let check = checked.get(description);
  if (check === undefined) {
    check = checkDescription(description, wordnet);
    if (checked.size > 1_000) checked.clear();
    checked.set(description, check);
  }
  return check;
}

const checked = new Map<string, DefinitionCheck>();

function checkDescription(description: string, wordnet: Wordnet): DefinitionCheck {
  const items = longestEnumeration(description);
  if (items.length < BROAD_LIST_ITEMS) return { ok: true };
  const topics = new Set<number>();
  // Enough items to see the spread; a huge keyword list costs no more than a long one.
  for (const item of items.slice(0, 200)) {
    const topic = topicOf(wordnet, item);
    if (topic !== undefined) topics.add(topic);
  }
  if (topics.size < BROAD_LIST_TOPICS) return { ok: true };
  return { ok: false, reason: 'broad_description', items: items.length, topics: topics.size, sample: items.slice(0, 8) };
}
