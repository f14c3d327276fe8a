import { afterEach, describe, expect, it } from 'vitest';
import type { AuditLog } from '../audit/types.ts';
import type { Approver } from '../gate/approvals/eligibility.ts';
import type { LedgerStore } from '../ledger/types.ts';
import { loadPolicy } from '../policy/load.ts';
import { FINANCE, type GateFixtureOptions, makeGateFixture } from './gate-fixture.ts';

/** The stores a gate runs on: a fresh, empty set for each test. */
export interface EditedCallHarness {
  ledger: LedgerStore;
  audit: AuditLog;
  cleanup?: () => Promise<void>;
}

// An edited call is always an approved call: it runs only with its own approval, consumed
// once, whatever policy says about the edited arguments (invariant 3; approve-with-edits).

const TWO_CFOS = loadPolicy(
  `
version: 1
rules:
  - id: small-transfers
    tool: transfer
    when: { type: object, properties: { amount: { type: number, maximum: 100 } }, required: [amount] }
    verdict: allow
  - id: large-transfers
    tool: transfer
    verdict: approve
    approval: { approvers: { roles: [cfo] }, required: 2 }
`,
  'yaml',
);
const CFO_1: Approver = { id: 'carla', roles: ['cfo'] };
const CFO_2: Approver = { id: 'chen', roles: ['cfo'] };

/** The attacks on edited calls, run on memory, SQLite and Postgres (the check reads the stored call's parent). */
export function runEditedCallConformance(name: string, open: () => Promise<EditedCallHarness>): void {
  describe(`edited calls: ${name}`, () => {
    const opened: EditedCallHarness[] = [];
    afterEach(async () => {
      for (const harness of opened.splice(0)) await harness.cleanup?.();
    });
    async function fixture(options: GateFixtureOptions = {}) {
      const harness = await open();
      opened.push(harness);
      return makeGateFixture({ ...options, ledger: harness.ledger, audit: harness.audit });
    }

    describe('attacks: an edited call runs only with its own approval', () => {
      it('an edit down to an amount policy allows outright still needs its token, and spends its approval once', async () => {
        const f = await fixture();
        const proposed = await f.gate.propose(f.call({ arguments: { amount: 500, to: 'alice' } }));
        if (proposed.status !== 'approval_required') throw new Error(proposed.status);
        const edited = await f.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve', editedArguments: { amount: 50, to: 'alice' } });
        if (!edited.ok) throw new Error(edited.reason);
        expect(edited.editedRequest?.status).toBe('approved');
        const proposalId = edited.editedProposal!.proposalId;

        // Without the edit's token: refused, nothing runs, the approval is not touched.
        expect(await f.gate.authorize({ proposalId })).toMatchObject({ status: 'not_approved', reason: 'missing' });
        expect(await f.gate.dispatch({ proposalId })).toMatchObject({ status: 'not_approved', reason: 'missing' });
        expect(f.executions).toHaveLength(0);
        expect(await f.ledger.getApprovalRequest(edited.editedRequest!.requestId)).toMatchObject({ status: 'approved' });

        const issued = await f.gate.approvals.token(edited.editedRequest!.requestId);
        if (!issued.ok) throw new Error(issued.reason);
        expect(await f.gate.dispatch({ proposalId, token: issued.token })).toMatchObject({ status: 'executed' });
        expect(f.executions).toEqual([expect.objectContaining({ tool: 'transfer', args: { amount: 50, to: 'alice' } })]);
        expect(await f.ledger.getApprovalRequest(edited.editedRequest!.requestId)).toMatchObject({ status: 'consumed' });
        expect(await f.gate.dispatch({ proposalId, token: issued.token })).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
        expect(f.executions).toHaveLength(1);
      });

      it('an edit by 1 of 2 required approvers leaves the edited call waiting for the second, however small the edit', async () => {
        const f = await fixture({ policy: TWO_CFOS });
        const proposed = await f.gate.propose(f.call({ arguments: { amount: 1_000_000, to: 'mallory' } }));
        if (proposed.status !== 'approval_required') throw new Error(proposed.status);
        const edited = await f.gate.approvals.decide(CFO_1, { requestId: proposed.requestId, decision: 'approve', editedArguments: { amount: 50, to: 'mallory' } });
        if (!edited.ok) throw new Error(edited.reason);
        const requestId = edited.editedRequest!.requestId;
        const proposalId = edited.editedProposal!.proposalId;
        expect(edited.editedRequest).toMatchObject({ status: 'pending', requiredApprovals: 2 });

        // At 1 of 2 the edited call waits: no run, no grant, no token.
        expect(await f.gate.authorize({ proposalId })).toMatchObject({ status: 'approval_required', requestId });
        expect(await f.gate.dispatch({ proposalId })).toMatchObject({ status: 'approval_required', requestId });
        expect(await f.gate.approvals.token(requestId)).toMatchObject({ ok: false });
        expect(f.executions).toHaveLength(0);

        expect(await f.gate.approvals.decide(CFO_2, { requestId, decision: 'approve' })).toMatchObject({ ok: true });
        const issued = await f.gate.approvals.token(requestId);
        if (!issued.ok) throw new Error(issued.reason);
        expect(await f.gate.dispatch({ proposalId, token: issued.token })).toMatchObject({ status: 'executed' });
        expect(await f.ledger.getApprovalRequest(requestId)).toMatchObject({ status: 'consumed' });
        expect(await f.gate.dispatch({ proposalId, token: issued.token })).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
        expect(f.executions).toHaveLength(1);
      });
    });
  });
}
