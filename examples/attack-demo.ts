/**
 * A tour of what Countersign rejects, runnable offline on the in-memory stores:
 *   npm run demo
 * It mints one real approval, runs the honest call, then replays the attacks from
 * the design's threat model against the same gate and prints each reason code.
 */
import { createHmac } from 'node:crypto';
import { type DispatchOutcome, verifyChain } from '@countersign/core';
import { FINANCE, makeGateFixture } from '@countersign/core/testing';

const f = makeGateFixture();
const rows: Array<[string, string]> = [];
const show = (label: string, outcome: DispatchOutcome | { status: string; reason?: string }) => {
  const reason = 'reason' in outcome && outcome.reason ? ` (${outcome.reason})` : '';
  rows.push([label, `${outcome.status}${reason}`]);
};

// 1. The model asks to transfer 500 to alice; policy says a person must approve.
const approved = await f.proposeAndApprove({ callId: 'call-transfer', arguments: '{"amount":500,"to":"alice"}' });
const claims = JSON.parse(Buffer.from(approved.token.split('.')[1] ?? '', 'base64url').toString());
console.log('Approval minted for exactly this call:');
console.log(`  tool=${claims.tool} call=${claims.call} principal=${claims.sub} approvers=${claims.apr.join(',')}`);
console.log(`  args sha256=${claims.args}`);
console.log(`  expires ${new Date(claims.exp * 1000).toISOString()}  token id ${claims.jti}\n`);

const honest = f.dispatchFor(approved.call, approved.token);
const [h, p] = approved.token.split('.') as [string, string, string];

// 2. Attacks, each against the same gate and ledger.
show('flag flip: "approved: true", no token', await f.gate.dispatch({ ...honest, token: undefined }));
show('argument drift: amount 500 -> 10000', await f.gate.dispatch({ ...honest, arguments: '{"amount":10000,"to":"alice"}' }));
show('argument drift: cc mallory added', await f.gate.dispatch({ ...honest, arguments: '{"amount":500,"to":"alice","cc":"mallory"}' }));
show('tool swap: transfer -> delete_repo', await f.gate.dispatch({ ...honest, toolName: 'delete_repo' }));
show('principal swap: user:42 -> user:99', await f.gate.dispatch({ ...honest, principal: 'user:99' }));
show('cross-session replay', await f.gate.dispatch({ ...honest, sessionId: 'session-evil' }));
show('forged signature', await f.gate.dispatch({ ...honest, token: `${h}.${p}.${'A'.repeat(43)}` }));
const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: 'countersign-approval+jwt', kid: 'k1' })).toString('base64url');
show('alg switched to none', await f.gate.dispatch({ ...honest, token: `${noneHeader}.${p}.AA` }));
show('HMAC with a guessed key', await f.gate.dispatch({ ...honest, token: `${h}.${p}.${createHmac('sha256', 'guess').update(`${h}.${p}`).digest('base64url')}` }));

const other = f.call({ callId: 'call-other', arguments: '{"amount":500,"to":"alice"}' });
await f.gate.propose(other);
show('replay onto another call id', await f.gate.dispatch(f.dispatchFor(other, approved.token)));
const otherRun = f.call({ runId: 'run-2', callId: 'call-transfer', arguments: '{"amount":500,"to":"alice"}' });
await f.gate.propose(otherRun);
show('cross-run replay (same call id)', await f.gate.dispatch(f.dispatchFor(otherRun, approved.token)));
show('fabricated call the model never made', await f.gate.dispatch({ ...honest, proposalId: 'made-up', callId: 'call-ghost' }));
show('another agent dispatches this call', await f.gate.dispatch(honest, { id: 'agent-b' }));
show('another agent records into this run', await f.gate.propose(f.call({ callId: 'call-squat' }), { id: 'agent-b' }));
show('duplicate keys in arguments', await f.gate.propose(f.call({ arguments: '{"amount":5,"to":"a","to":"mallory"}' })));
show('integer beyond 2^53', await f.gate.propose(f.call({ arguments: '{"amount":9007199254740993,"to":"a"}' })));
show('unclassified tool', await f.gate.propose(f.call({ toolName: 'unlisted_tool', arguments: {} })));
show('policy deny (delete_*)', await f.gate.propose(f.call({ toolName: 'delete_repo', arguments: { repo: 'prod' } })));

// 3. The honest call, once; then a replay of the same token.
const equivalent = { ...honest, arguments: '{"to":"alice","amount":500.0}' };
show('HONEST: same call, keys reordered, 500.0', await f.gate.dispatch(equivalent));
show('replay after use', await f.gate.dispatch(honest));
const burst = await Promise.all(Array.from({ length: 1000 }, () => f.gate.dispatch(honest)));
rows.push(['1,000 concurrent replays', `${burst.filter((o) => o.status === 'executed').length} executed`]);

// 4. An expired approval.
const late = await f.proposeAndApprove({ callId: 'call-late' });
f.clock.advance(11 * 60_000);
show('expired approval (11 minutes later)', await f.gate.dispatch(f.dispatchFor(late.call, late.token)));

const width = Math.max(...rows.map(([label]) => label.length));
for (const [label, result] of rows) console.log(`${label.padEnd(width)}  ->  ${result}`);

const chain = verifyChain(await f.audit.read());
console.log(`\nTool executions: ${f.executions.length} (${f.executions.map((e) => JSON.stringify(e.args)).join(', ')})`);
console.log(`Audit chain: ${chain.ok ? `ok, ${chain.count} records` : `BROKEN at ${chain.index}: ${chain.reason}`}`);
console.log(`Approver: ${FINANCE.id} (roles ${FINANCE.roles?.join(',')})`);
if (f.executions.length !== 1 || !chain.ok) process.exit(1);
