import { describe, expect, it } from 'vitest';
import { stemOf, words } from './tokenize.ts';

describe('tokenize', () => {
  it('keeps words of any script whole ("Überweise", "última"), lower case', () => {
    expect(words('Überweise 50 Euro für die última cuota')).toEqual(['überweise', 'euro', 'für', 'die', 'última', 'cuota']);
    expect(words('Привет мир')).toEqual(['привет', 'мир']);
  });

  it('contractions, with straight or curly apostrophes, reduce to their stopword', () => {
    expect(words("I’m sure we don't need what she’s built; it hasn’t shipped")).toEqual(['sure', 'need', 'built', 'shipped']);
  });

  it('still splits identifiers and drops stopwords', () => {
    expect(words('listWorkflowRuns for the list_pull_requests tool')).toEqual(['list', 'workflow', 'runs', 'list', 'pull', 'requests', 'tool']);
    expect(words('ÜberweisungAusführen')).toEqual(['überweisung', 'ausführen']);
  });

  it('the English stemmer is applied to English words only', () => {
    expect(stemOf('running')).toBe('run');
    expect(stemOf('última')).toBe('última');
  });
});
