// Child process for the multi-process tests: opens the shared file with its own
// connection and races the other children. Run with --conditions=countersign-source.
import { openSqliteStore } from '../open.ts';
import { waitForGo } from '@countersign/core/testing/children';

const [mode, path, arg1 = '', arg2 = ''] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: sqlite-child.ts consume|consume-burst|audit|audit-burst <path> ...');
const store = openSqliteStore({ path, busyTimeoutMs: 30_000 });
await waitForGo();

type Approval = { proposalId: string; requestId: string; tokenId: string };
const consumeOnce = (a: Approval) =>
  store.ledger.consume({ proposalId: a.proposalId, approval: { requestId: a.requestId, tokenId: a.tokenId }, now: Date.UTC(2026, 0, 1) + 10 });
const appendOne = (i: number) => store.audit.append({ type: 'dispatch', at: Date.UTC(2026, 0, 1) + i, actor: arg2, callId: `c${i}` });

if (mode === 'consume' || mode === 'consume-burst') {
  // arg1: JSON list of { proposalId, requestId, tokenId }; arg2: attempts per approval.
  // consume: one attempt at a time; consume-burst: every attempt submitted at once, so
  // this process's group-committed batches race the other processes' batches.
  const approvals = JSON.parse(arg1) as Approval[];
  const attempts = approvals.flatMap((a) => Array.from({ length: Number(arg2) }, () => a));
  const results = [];
  if (mode === 'consume') for (const a of attempts) results.push(await consumeOnce(a));
  else results.push(...(await Promise.all(attempts.map(consumeOnce))));
  const won: string[] = [];
  const reasons: Record<string, number> = {};
  results.forEach((r, i) => {
    if (r.ok) won.push(attempts[i]!.proposalId);
    else reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
  });
  process.stdout.write(`${JSON.stringify({ won, reasons })}\n`);
} else if (mode === 'audit' || mode === 'audit-burst') {
  // arg1: appends to make; arg2: this child's name, recorded as the actor.
  // audit: one at a time; audit-burst: all submitted at once. seqs are in submission order.
  const indexes = Array.from({ length: Number(arg1) }, (_, i) => i);
  const seqs: number[] = [];
  if (mode === 'audit') for (const i of indexes) seqs.push((await appendOne(i)).seq);
  else seqs.push(...(await Promise.all(indexes.map(appendOne))).map((r) => r.seq));
  process.stdout.write(`${JSON.stringify({ seqs })}\n`);
} else {
  throw new Error(`unknown mode ${mode}`);
}
await store.close();
