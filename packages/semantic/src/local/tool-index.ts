import type { MatchTool } from '../matcher/types.ts';
import { stemOf, words } from '../text/tokenize.ts';
import type { WordVectors } from '../vectors/word-vectors.ts';
import { createSoftMatcher, type SoftMatchOptions } from './soft-match.ts';

/** The fields of a tool definition, each with its own weight in BM25F. */
export type FieldName = 'name' | 'description' | 'parameters' | 'concepts' | 'gloss';

export interface IndexOptions {
  /** Multiplies a field's term frequency: a word in the tool's name counts more than one in a parameter. */
  weights: Readonly<Record<FieldName, number>>;
  /** BM25 saturation. */
  k1: number;
  /** BM25 length normalization, per field. */
  b: number;
  /** Maps a word to the WordNet concepts it can stand for; omit to rank on stems only. */
  concepts?: ((word: string) => readonly string[]) | undefined;
  /** Maps a word to the stems of its WordNet definitions; omit to leave definitions out. */
  glosses?: ((word: string) => readonly string[]) | undefined;
  /**
   * Weight of a task word's definition stems as query terms (they meet the tool's own words),
   * against 1 for the task's words themselves. Default 0.
   */
  taskGlossWeight?: number | undefined;
  /**
   * Tools whose description is not used as vocabulary (a keyword list over many topics, see
   * definition-check.ts): they rank on their name and parameters only.
   */
  distrusted?: ((tool: MatchTool) => boolean) | undefined;
  /**
   * Word vectors: a task word also asks for the catalogue's words closest to it in meaning
   * ("jazz" → music), each at its similarity times `weight`, so paraphrase meets the tool's
   * own words. Omit to rank on shared words and concepts only.
   */
  vectors?: (SoftMatchOptions & { lookup: WordVectors }) | undefined;
  /** Plain BM25 for comparison: whole words, no stemming, no abbreviations. Default false. */
  plain?: boolean | undefined;
}

interface IndexedTool {
  tool: MatchTool;
  /** Weighted, length-normalized term frequency per term (stems and concept keys). */
  tf: Map<string, number>;
}

/** A BM25F index over one catalogue; built once per catalogue and reused for every call. */
export interface ToolIndex {
  readonly tools: readonly IndexedTool[];
  /** BM25F score of every tool for the task, in catalogue order. */
  score(task: string): Float64Array;
  /** Distinct query terms of a task (its stems and concepts): how much text the score was summed over. */
  termCount(task: string): number;
  /** Every word of the catalogue's names, descriptions and parameters, lower case. */
  readonly vocabulary: ReadonlySet<string>;
  /** Position of the tool in the catalogue (same server and name), or -1. */
  find(tool: MatchTool): number;
}

export function toolKey(tool: MatchTool): string {
  return `${tool.server ?? ''}\u0000${tool.name}`;
}

/** Terms of a text: Porter2 stems, plus `~concept` keys and `^stem` definition words when WordNet is on. */
function fieldTerms(text: string, options: IndexOptions): { stems: string[]; concepts: string[]; glosses: string[] } {
  const ws = words(text);
  const concepts: string[] = [];
  const glosses: string[] = [];
  if (options.concepts !== undefined) for (const w of ws) for (const c of options.concepts(w)) concepts.push(`~${c}`);
  if (options.glosses !== undefined) for (const w of ws) for (const g of options.glosses(w)) glosses.push(g);
  return { stems: options.plain ? ws : ws.map(stemOf), concepts, glosses };
}

function parameterText(tool: MatchTool): string {
  const parts: string[] = [];
  for (const [name, spec] of Object.entries(tool.parameters ?? {})) parts.push(name, spec.description ?? '');
  return parts.join(' ');
}

export function buildToolIndex(catalogue: readonly MatchTool[], options: IndexOptions): ToolIndex {
  const raw = catalogue.map((tool) => {
    const name = fieldTerms(tool.name, options);
    // Links are not vocabulary: "docs.github.com/en/…" would match any task that says "docs".
    const text = options.distrusted?.(tool) ? '' : (tool.description ?? '').replace(/https?:\/\/\S+/g, ' ');
    const description = fieldTerms(text, options);
    const parameters = fieldTerms(parameterText(tool), options);
    const fields: Record<FieldName, string[]> = {
      name: name.stems,
      description: description.stems,
      parameters: parameters.stems,
      // Concepts of the name and description only: parameter names are too generic (owner, repo, page).
      concepts: [...name.concepts, ...description.concepts],
      // What the name's and description's words are defined by, kept apart from the words themselves.
      gloss: [...name.glosses, ...description.glosses].map((g) => `^${g}`),
    };
    return { tool, fields };
  });
  const fieldNames: FieldName[] = ['name', 'description', 'parameters', 'concepts', 'gloss'];
  const avgLength = {} as Record<FieldName, number>;
  for (const f of fieldNames) avgLength[f] = raw.reduce((sum, t) => sum + t.fields[f].length, 0) / Math.max(1, raw.length) || 1;

  const documentFrequency = new Map<string, number>();
  const tools: IndexedTool[] = raw.map(({ tool, fields }) => {
    const tf = new Map<string, number>();
    for (const f of fieldNames) {
      if (options.weights[f] === 0 || fields[f].length === 0) continue;
      const norm = 1 - options.b + (options.b * fields[f].length) / avgLength[f];
      for (const term of fields[f]) tf.set(term, (tf.get(term) ?? 0) + options.weights[f] / norm);
    }
    for (const term of tf.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    return { tool, tf };
  });
  const n = tools.length;
  const idf = new Map<string, number>();
  for (const [term, df] of documentFrequency) idf.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)));

  // Inverted lists, so a task only touches the tools that share a term with it.
  const postings = new Map<string, { doc: number; weight: number }[]>();
  tools.forEach((t, doc) => {
    for (const [term, tf] of t.tf) {
      const weight = (idf.get(term) ?? 0) * ((tf * (options.k1 + 1)) / (tf + options.k1));
      let list = postings.get(term);
      if (list === undefined) {
        list = [];
        postings.set(term, list);
      }
      list.push({ doc, weight });
    }
  });
  const acronyms = options.plain ? new Map<string, string[]>() : acronymsOf(catalogue);
  const byKey = new Map<string, number>();
  tools.forEach((t, i) => {
    byKey.set(toolKey(t.tool), i);
  });

  const vocabulary = new Set<string>();
  for (const tool of catalogue) for (const w of words(`${tool.name} ${tool.description ?? ''} ${parameterText(tool)}`)) vocabulary.add(w);
  // Only words that are terms of some tool can be reached (a distrusted description's are not).
  const indexed = [...vocabulary].filter((w) => postings.has(stemOf(w)));
  const soft = options.vectors === undefined || options.plain ? undefined : createSoftMatcher(indexed, options.vectors.lookup, options.vectors);

  return {
    tools,
    vocabulary,
    find: (tool) => byKey.get(toolKey(tool)) ?? -1,
    termCount: (task) => new Set(words(task).map(stemOf)).size,
    score(task) {
      const scores = new Float64Array(n);
      const { stems, concepts, glosses } = fieldTerms(task, options);
      // "PRs" in a task means the catalogue's "pull requests": upper-case abbreviations of
      // words that appear together in tool names are expanded to those words.
      for (const match of task.matchAll(/\b([A-Z]{2,4})s?\b/g)) {
        for (const stem of acronyms.get((match[1] ?? '').toLowerCase()) ?? []) stems.push(stem);
      }
      // Each distinct query term counts once: repeating a word in the task must not outweigh the rest.
      const query = new Map<string, number>();
      const ask = (term: string, weight: number) => query.set(term, Math.max(weight, query.get(term) ?? 0));
      const glossWeight = options.taskGlossWeight ?? 0;
      if (glossWeight > 0) for (const g of glosses) ask(g, glossWeight);
      if (soft !== undefined) {
        for (const w of words(task)) {
          if (options.vectors?.onlyUnmatched && postings.has(stemOf(w))) continue;
          for (const [stem, weight] of soft.neighbours(w)) ask(stem, weight);
        }
      }
      for (const term of [...stems, ...concepts]) ask(term, 1);
      // A task word found in the definitions of a tool's words.
      if (options.glosses !== undefined) for (const term of stems) ask(`^${term}`, 1);
      for (const [term, q] of query) {
        for (const { doc, weight } of postings.get(term) ?? []) scores[doc] = (scores[doc] ?? 0) + q * weight;
      }
      return scores;
    },
  };
}

/**
 * Abbreviations the catalogue itself defines: the initials of two or three consecutive words
 * of a tool name (`list_pull_requests` → "pr" → pull, request). Taken only from tool names,
 * so the expansion follows the catalogue, not a word list.
 */
function acronymsOf(catalogue: readonly MatchTool[]): Map<string, string[]> {
  const candidates = new Map<string, Map<string, number>>();
  for (const tool of catalogue) {
    const ws = words(tool.name);
    for (let n = 2; n <= 3; n += 1) {
      for (let i = 0; i + n <= ws.length; i += 1) {
        const gram = ws.slice(i, i + n);
        const acronym = gram.map((w) => w[0]).join('');
        let seen = candidates.get(acronym);
        if (seen === undefined) {
          seen = new Map();
          candidates.set(acronym, seen);
        }
        const expansion = gram.map(stemOf).join(' ');
        seen.set(expansion, (seen.get(expansion) ?? 0) + 1);
      }
    }
  }
  const out = new Map<string, string[]>();
  // An abbreviation expands only to a clearly dominant reading (at least twice as many tool
  // names as any other); a truly ambiguous one expands to nothing.
  for (const [acronym, expansions] of candidates) {
    const [first, second] = [...expansions].sort((a, b) => b[1] - a[1]);
    if (first !== undefined && (second === undefined || first[1] >= 2 * second[1])) out.set(acronym, first[0].split(' '));
  }
  return out;
}
