import { describe, expect, it } from 'vitest';
import { negatedScope } from './negation.ts';

describe('negated scope', () => {
  it('what follows a negation, up to three words or the clause’s end, is not asked for', () => {
    expect(negatedScope('list the open tickets but don’t close any of them')).toEqual({ asked: 'list the open tickets but them', negated: ['close', 'any', 'of'] });
    expect(negatedScope("just show me Dana's profile, don't change anything").negated).toEqual(['change', 'anything']);
    expect(negatedScope('Do not forward this, just read me the mail')).toMatchObject({ negated: ['forward', 'this'] });
    expect(negatedScope('never merge anything').negated).toEqual(['merge', 'anything']);
  });

  it('a request without a negation is all asked for', () => {
    expect(negatedScope('Delete the old branch')).toEqual({ asked: 'delete the old branch', negated: [] });
  });
});
