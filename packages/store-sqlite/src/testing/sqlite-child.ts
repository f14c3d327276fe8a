// Child process for the multi-process tests: opens the shared file with its own
// connection and races the other children. Run with --conditions=countersign-source.
import { openSqliteStore } from '../open.ts';
import { waitForGo } from '@countersign/core/testing/children';

const [mode, path, arg1 = '', arg2 = ''] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: sqlite-child.ts consume|audit <path> ...');
const store = openSqliteStore({ path, busyTimeoutMs: 30_000 });
await waitForGo();

if (mode === 'consume') {
  // arg1: JSON list of { proposalId, requestId, tokenId }; arg2: attempts per approval.
  const approvals = JSON.parse(arg1) as { proposalId: string; requestId: string; tokenId: string }[];
  const won: string[] = [];
  const reasons: Record<string, number> = {};
  for (const a of approvals) {
    for (let i = 0; i < Number(arg2); i++) {
      const r = await store.ledger.consume({
        proposalId: a.proposalId,
        approval: { requestId: a.requestId, tokenId: a.tokenId },
        now: Date.UTC(2026, 0, 1) + 10,
      });
      if (r.ok) won.push(a.proposalId);
      else reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
    }
  }
  process.stdout.write(`${JSON.stringify({ won, reasons })}\n`);
} else if (mode === 'audit') {
  // arg1: appends to make; arg2: this child's name, recorded as the actor.
  const seqs: number[] = [];
  for (let i = 0; i < Number(arg1); i++) {
    const record = await store.audit.append({ type: 'dispatch', at: Date.UTC(2026, 0, 1) + i, actor: arg2, callId: `c${i}` });
    seqs.push(record.seq);
  }
  process.stdout.write(`${JSON.stringify({ seqs })}\n`);
} else {
  throw new Error(`unknown mode ${mode}`);
}
await store.close();
