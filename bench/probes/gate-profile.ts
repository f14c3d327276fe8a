/**
 * Profiles the in-memory dispatch alone (setup excluded):
 *   node --conditions=countersign-source bench/probes/gate-profile.ts [200B|10KB] [ops] [out.cpuprofile]
 * Pre-approves `ops` calls (untimed), then dispatches each once and prints µs per dispatch:
 * wall, process CPU (what the bench's CPU clock counts, GC helper threads included), the main
 * thread's CPU alone, and the garbage collections seen during the loop (count and pause time).
 * With an output path, the last round's CPU profile (dispatch loop only) is written there;
 * `node bench/probes/profile-summary.ts out.cpuprofile` prints its self and inclusive times by function.
 */
import { ARGUMENT_CASES } from '../arguments.ts';
import { dispatchLoop } from '../gate-cases.ts';
import { profileRounds } from './profile-rounds.ts';

const label = (process.argv[2] ?? '200B').replace(/\s/g, '');
const ops = Number(process.argv[3] ?? 20_000);
const out = process.argv[4];
const arg = ARGUMENT_CASES.find((a) => a.label.replace(/\s/g, '') === label);
if (arg === undefined) throw new Error(`no argument case ${label}`);

await profileRounds({
  what: `${arg.label} dispatch`,
  ops,
  rounds: Number(process.env.ROUNDS ?? 4),
  out,
  prepare: () => dispatchLoop(arg.args, ops),
});
