import { describe, expect, it } from 'vitest';
import type { KitContext } from './kit-context.ts';

/** Invariant 7 through the port: arguments compared in canonical form, and input that cannot be canonicalized losslessly refused. */
export function describeCanonicalAttacks(kit: KitContext): void {
  describe('canonical arguments', () => {
    it('key order, 1000 vs 1000.0 vs 1e3 and escaped vs literal unicode are the same call', async () => {
      const { call, proposalId, token } = await kit.approved({ arguments: '{"to":"zoë","amount":1000}' });
      for (const args of ['{"amount":1000,"to":"zoë"}', '{"amount":1000.0,"to":"zo\\u00eb"}', '{"to":"zo\\u00EB","amount":1e3}']) {
        // Without the token it gets as far as the approval check: the arguments matched.
        expect(await kit.run({ ...kit.request(call, proposalId), arguments: args }), args).toMatchObject({ status: 'not_approved', reason: 'missing' });
      }
      expect(await kit.run({ ...kit.request(call, proposalId, token), arguments: { to: 'zoë', amount: 1000 } })).toMatchObject({ status: 'authorized' });
      expect(kit.runsOf(proposalId)).toBe(1);
    });

    it('duplicate keys, unsafe integers and __proto__ are refused at propose (invalid_arguments) and at authorize', async () => {
      for (const [args, detail] of [
        ['{"amount":10,"to":"alice","amount":10000}', /duplicate_key/],
        ['{"amount":9007199254740993,"to":"alice"}', /unsafe_integer/],
        ['{"__proto__":{"admin":true}}', /./],
      ] as const) {
        const proposed = await kit.propose(kit.call({ arguments: args }));
        expect(proposed, args).toMatchObject({ status: 'rejected', reason: 'invalid_arguments' });
        expect((proposed as { message?: string }).message, args).toMatch(detail);
      }
      const { call, proposalId, token } = await kit.approved();
      const duplicated = '{"amount":500,"to":"alice","to":"mallory"}';
      expect(await kit.run({ ...kit.request(call, proposalId, token), arguments: duplicated })).toMatchObject({ status: 'not_approved', reason: 'invalid_arguments' });
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it('a tool named like an Object.prototype member is denied, not looked up on the prototype', async () => {
      for (const toolName of ['constructor', '__proto__', 'toString']) {
        expect(await kit.propose(kit.call({ toolName, arguments: {} })), toolName).toMatchObject({ status: 'denied' });
      }
    });
  });
}
