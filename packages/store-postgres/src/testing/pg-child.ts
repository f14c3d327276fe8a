// Child process for the multi-process tests: its own pool on the shared schema,
// racing the other children. Run with --conditions=countersign-source.
import { openPostgresStore } from '../open.ts';
import { waitForGo } from '@countersign/core/testing/children';

const [mode, url, schema, arg1 = '', arg2 = ''] = process.argv.slice(2);
if (url === undefined || schema === undefined) throw new Error('usage: pg-child.ts consume|audit <url> <schema> ...');
const store = await openPostgresStore({ connectionString: url, schema, pool: { max: 5 } });
await waitForGo();

if (mode === 'consume') {
  // arg1: JSON list of { proposalId, requestId, tokenId }; arg2: concurrent attempts per approval.
  const approvals = JSON.parse(arg1) as { proposalId: string; requestId: string; tokenId: string }[];
  const won: string[] = [];
  const reasons: Record<string, number> = {};
  for (const a of approvals) {
    const results = await Promise.all(
      Array.from({ length: Number(arg2) }, () =>
        store.ledger.consume({
          proposalId: a.proposalId,
          approval: { requestId: a.requestId, tokenId: a.tokenId },
          now: Date.UTC(2026, 0, 1) + 10,
        }),
      ),
    );
    for (const r of results) {
      if (r.ok) won.push(a.proposalId);
      else reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
    }
  }
  process.stdout.write(`${JSON.stringify({ won, reasons })}\n`);
} else if (mode === 'consume-audited') {
  // Like consume, with each consume's `dispatch` record in its transaction, and every
  // attempt on every approval in flight at once in a shuffled order, so this process's
  // group commits take row locks in a different order than the other processes'.
  const approvals = JSON.parse(arg1) as { proposalId: string; requestId: string; tokenId: string }[];
  const attempts = approvals.flatMap((a) => Array.from({ length: Number(arg2) }, () => a));
  for (let i = attempts.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [attempts[i], attempts[j]] = [attempts[j]!, attempts[i]!];
  }
  const won: string[] = [];
  const reasons: Record<string, number> = {};
  const results = await Promise.all(
    attempts.map((a) =>
      store.ledger.consume({ proposalId: a.proposalId, approval: { requestId: a.requestId, tokenId: a.tokenId }, now: Date.UTC(2026, 0, 1) + 10 }, (c) =>
        c.ok ? [{ type: 'dispatch', at: Date.UTC(2026, 0, 1) + 10, proposalId: a.proposalId, requestId: a.requestId, actor: 'child' }] : [],
      ),
    ),
  );
  results.forEach((r, i) => {
    if (r.ok) won.push(attempts[i]!.proposalId);
    else reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
  });
  process.stdout.write(`${JSON.stringify({ won, reasons })}\n`);
} else if (mode === 'audit') {
  // arg1: appends to make (10 in flight at a time); arg2: this child's name, recorded as the actor.
  const seqs: number[] = [];
  const total = Number(arg1);
  for (let start = 0; start < total; start += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, total - start) }, (_, i) =>
        store.audit.append({ type: 'dispatch', at: Date.UTC(2026, 0, 1) + start + i, actor: arg2, callId: `c${start + i}` }),
      ),
    );
    seqs.push(...batch.map((r) => r.seq));
  }
  process.stdout.write(`${JSON.stringify({ seqs })}\n`);
} else {
  throw new Error(`unknown mode ${mode}`);
}
await store.close();
