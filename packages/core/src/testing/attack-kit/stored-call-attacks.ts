import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../digest.ts';
import { definitionDigest } from '../../catalog/tools.ts';
import type { Proposal } from '../../ledger/types.ts';
import { attackKitTools } from './fixtures.ts';
import type { KitContext } from './kit-context.ts';

/**
 * Attacks on the stored call: an attacker who can write to the database edits the row
 * after approval. The token binds what was approved, so an edited row never runs.
 * Needs the adapter's `tamperStoredCall`; skipped without it.
 */
export function describeStoredCallAttacks(kit: KitContext): void {
  describe('the stored call, edited after approval', () => {
    const drift = '{"amount":10000,"to":"alice"}';

    /** An approved call whose stored row now reads as `edit` leaves it; the agent sends what the row says. */
    async function tampered(edit: (row: Proposal) => Proposal) {
      const tamper = kit.adapter.tamperStoredCall;
      if (tamper === undefined) return undefined;
      const approved = await kit.approved();
      await tamper.call(kit.adapter, approved.proposalId, edit);
      return approved;
    }

    it('arguments and their digest edited in the row: the token binding refuses them (args_mismatch)', async (context) => {
      const approved = await tampered((row) => ({ ...row, canonicalArgs: drift, argsDigest: sha256Hex(drift) }));
      if (approved === undefined) return context.skip();
      const { call, proposalId, token } = approved;
      expect(await kit.run({ ...kit.request(call, proposalId, token), arguments: undefined })).toMatchObject({ status: 'not_approved', reason: 'args_mismatch' });
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it('arguments edited without their digest: ledger_integrity', async (context) => {
      const approved = await tampered((row) => ({ ...row, canonicalArgs: drift }));
      if (approved === undefined) return context.skip();
      const { call, proposalId, token } = approved;
      expect(await kit.run({ ...kit.request(call, proposalId, token), arguments: undefined })).toMatchObject({ status: 'not_approved', reason: 'ledger_integrity' });
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it('principal swapped in the row (and in the request to match): principal_mismatch', async (context) => {
      const approved = await tampered((row) => ({ ...row, principal: 'user:mallory' }));
      if (approved === undefined) return context.skip();
      const { call, proposalId, token } = approved;
      expect(await kit.run({ ...kit.request(call, proposalId, token), principal: 'user:mallory' })).toMatchObject({ status: 'not_approved', reason: 'principal_mismatch' });
      expect(kit.runsOf(proposalId)).toBe(0);
    });

    it('tool swapped in the row to another tool that needs approval: the token names the approved tool (tool_mismatch)', async (context) => {
      // The row names kit_quick with kit_quick's own definition, so only the token can tell.
      const quick = definitionDigest(attackKitTools().kit_quick!.definition!);
      const approved = await tampered((row) => ({ ...row, toolName: 'kit_quick', definitionDigest: quick }));
      if (approved === undefined) return context.skip();
      const { call, proposalId, token } = approved;
      expect(await kit.run({ ...kit.request(call, proposalId, token), toolName: undefined })).toMatchObject({ status: 'not_approved', reason: 'tool_mismatch' });
      expect(kit.runsOf(proposalId)).toBe(0);
    });
  });
}
