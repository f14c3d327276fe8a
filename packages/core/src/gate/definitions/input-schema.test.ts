import { describe, expect, it } from 'vitest';
import { checkInputSchema } from './input-schema.ts';

const transfer = {
  type: 'object',
  properties: { amount: { type: 'number' }, to: { type: 'string' } },
  required: ['amount', 'to'],
  additionalProperties: false,
};

describe('checkInputSchema', () => {
  it('passes arguments the schema allows', () => {
    expect(checkInputSchema(transfer, { amount: 500, to: 'acct-1234' })).toEqual({ ok: true, checked: true });
  });

  it('reports wrong types and extra properties by JSON Pointer', () => {
    const result = checkInputSchema(transfer, { amount: 'all of it', to: 42, memo: 'x' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const pointers = result.problems.map((p) => p.pointer).sort();
    expect(pointers).toEqual(['/amount', '/memo', '/to']);
  });

  it('never coerces: the string "500" is not a number', () => {
    expect(checkInputSchema(transfer, { amount: '500', to: 'a' }).ok).toBe(false);
  });

  it('says there was nothing to check when the tool has no schema', () => {
    expect(checkInputSchema(undefined, { anything: true })).toEqual({ ok: true, checked: false });
  });

  it('flags a schema that cannot be compiled instead of passing the call', () => {
    const result = checkInputSchema({ type: 'no-such-type' }, {});
    expect(result.ok).toBe(false);
  });

  it('accepts draft-07 tool schemas as MCP servers publish them', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false };
    expect(checkInputSchema(schema, { q: 'x' }).ok).toBe(true);
    expect(checkInputSchema(schema, { q: 1 }).ok).toBe(false);
  });
});
