import { allWords } from './tokenize.ts';

/** Words that open a negated scope: what follows them is what the user does not want done. */
const NEGATORS = new Set(['not', 'never', 'nor', 'without', 'dont', 'do', 'no', 'avoid', 'stop']);
/** Words that close a scope early: the sentence turns back to what is wanted. */
const SCOPE_ENDS = new Set(['but', 'just', 'only', 'instead', 'and', 'then', 'rather']);
/** How many words after a negator it covers ("don't close any of them" → close, any, of). */
const SCOPE = 3;

/**
 * Splits a task into what is asked for and what is negated ("list the open tickets but don't
 * close any of them" → negated: close, any, of). A negated verb is the opposite of a request: it
 * must not make a tool that does it fit, and a tool named by it is the one the user ruled out.
 * Sentence punctuation ends a scope. English only; other languages are not read anyway.
 */
export function negatedScope(task: string): { asked: string; negated: string[] } {
  const negated: string[] = [];
  const kept: string[] = [];
  for (const clause of task.split(/[.,;:!?()\n]+/)) {
    // allWords drops the clitic of "don't" / "won't" and keeps "do"/"wo": the raw text tells them apart.
    const raw = clause.toLowerCase().replace(/\b(?:do|does|did|wo|ca|should|would|must)n['\u2019]?t\b/g, ' dont ');
    const ws = allWords(raw);
    let left = 0;
    for (let i = 0; i < ws.length; i += 1) {
      const w = ws[i] ?? '';
      const opens = w === 'dont' || (NEGATORS.has(w) && w !== 'do') || (w === 'no' && ws[i + 1] === 'need');
      if (opens) {
        left = SCOPE + (ws[i + 1] === 'need' ? 2 : 0);
        continue;
      }
      if (left > 0 && !SCOPE_ENDS.has(w)) {
        negated.push(w);
        left -= 1;
        continue;
      }
      left = 0;
      kept.push(w);
    }
  }
  return { asked: kept.join(' '), negated };
}
