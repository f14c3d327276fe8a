/**
 * Profiles the in-memory steps that write an approval's audit records (setup excluded): each
 * op proposes one call that needs approval (the proposal, its verdict and its request) and
 * approves it (the decision and its token), on a gate whose ledger appends to its audit log.
 *   node --conditions=countersign-source bench/probes/approval-steps-profile.ts [200B|10KB] [ops] [out.cpuprofile]
 * Prints µs per op (bench/probes/profile-rounds.ts). To compare two checkouts, run it in each,
 * alternating, on a quiet machine (the process CPU column is the one to compare).
 */
import { ARGUMENT_CASES } from '../arguments.ts';
import { newGate } from '../gate-cases.ts';
import { profileRounds } from './profile-rounds.ts';

const label = (process.argv[2] ?? '200B').replace(/\s/g, '');
const ops = Number(process.argv[3] ?? 10_000);
const out = process.argv[4];
const arg = ARGUMENT_CASES.find((a) => a.label.replace(/\s/g, '') === label);
if (arg === undefined) throw new Error(`no argument case ${label}`);
const CALL = { runId: 'run-bench', sessionId: 'session-bench', principal: 'user:bench', toolName: 'bulk_update' };
const APPROVER = { id: 'approver-1' };

await profileRounds({
  what: `${arg.label} propose + approve`,
  ops,
  rounds: Number(process.env.ROUNDS ?? 4),
  out,
  prepare: async () => {
    const gate = newGate();
    return async () => {
      for (let i = 0; i < ops; i++) {
        const proposed = await gate.propose({ ...CALL, callId: `call-${i}`, arguments: arg.args });
        if (proposed.status !== 'approval_required') throw new Error(`propose gave ${proposed.status}`);
        const decided = await gate.approvals.decide(APPROVER, { requestId: proposed.requestId, decision: 'approve' });
        if (!decided.ok) throw new Error(`decide gave ${decided.reason}`);
      }
    };
  },
});
