import { describe, expect, it, vi } from 'vitest';
import type { Proposal } from '../../ledger/types.ts';
import { RecordedCallInput } from './recorded-call-input.ts';

const proposal = {
  toolName: 'transfer',
  canonicalArgs: '{"amount":10,"to":"alice"}',
  principal: 'user:1',
  runId: 'run-1',
  sessionId: 's-1',
  definitionDigest: undefined,
} as unknown as Proposal;

describe('the policy input of a recorded call', () => {
  it('reads like the plain object it replaces: members, order, spread and JSON', () => {
    const input = new RecordedCallInput(proposal);
    const plain = { toolName: 'transfer', args: { amount: 10, to: 'alice' }, principal: 'user:1', runId: 'run-1', sessionId: 's-1', definitionDigest: undefined };
    expect(Object.keys(input)).toEqual(Object.keys(plain));
    expect({ ...input }).toEqual(plain);
    expect(JSON.parse(JSON.stringify(input))).toEqual(JSON.parse(JSON.stringify(plain)));
    expect(Object.getOwnPropertyDescriptor(input, 'args')).toMatchObject({ enumerable: true });
  });

  it('parses the arguments once, and only when a rule reads them', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const input = new RecordedCallInput(proposal);
      expect(input.toolName).toBe('transfer');
      expect(parse).not.toHaveBeenCalled();
      const first = input.args;
      expect(input.args).toBe(first);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});
