import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type AuditRecord, buildRecord, CheckpointingAuditLog } from '@countersign/core/audit';
import { hmacKey, Keyring } from '@countersign/core/token';
import { FINANCE, FIXTURE_SECRET, makeGateFixture } from '@countersign/core/testing';
import { openSqliteStore } from '@countersign/store-sqlite';

/**
 * A SQLite store at `path`, checkpointed the way `serve` does it (every 4 records here,
 * and at close), with master.key next to it. History: call-1 allowed and executed,
 * call-2 approved and executed, call-3 denied by a signed decision and then refused at
 * dispatch, call-4 allowed and executed. Returns the records and the key file's path.
 */
export async function checkpointedStore(path: string): Promise<{ records: AuditRecord[]; keyFile: string }> {
  const keyFile = join(dirname(path), 'master.key');
  const store = openSqliteStore({ path });
  writeFileSync(keyFile, `${FIXTURE_SECRET.toString('hex')}\n`, { mode: 0o600 });
  try {
    const keyring = new Keyring([hmacKey('k1', FIXTURE_SECRET)]);
    const audit = new CheckpointingAuditLog(store.audit, { keyring, everyRecords: 4, everyMs: 0 });
    const fx = makeGateFixture({ ledger: store.ledger, audit, keyring });
    const allowed = fx.call({ arguments: '{"amount":5,"to":"bob"}' });
    await fx.gate.propose(allowed);
    await fx.gate.dispatch(fx.dispatchFor(allowed));
    const approved = await fx.proposeAndApprove();
    await fx.gate.dispatch(fx.dispatchFor(approved.call, approved.token));
    const denied = fx.call();
    const proposed = await fx.gate.propose(denied);
    if (proposed.status !== 'approval_required') throw new Error(`expected approval_required, got ${proposed.status}`);
    await fx.gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'deny', reason: 'not this month' });
    await fx.gate.dispatch(fx.dispatchFor(denied));
    const last = fx.call({ arguments: '{"amount":7,"to":"bob"}' });
    await fx.gate.propose(last);
    await fx.gate.dispatch(fx.dispatchFor(last));
    await audit.close();
    return { records: await store.audit.read(), keyFile };
  } finally {
    await store.close();
  }
}

/**
 * What someone with write access to the database but without the key can do: replace
 * the audit table with `edit(records)`, every hash recomputed so the chain is consistent.
 */
export function rewriteAuditTable(path: string, edit: (records: AuditRecord[]) => AuditRecord[]): void {
  const db = new DatabaseSync(path);
  try {
    const rows = db.prepare('SELECT seq, prev_hash, hash, event FROM audit_records ORDER BY seq').all() as {
      seq: number;
      prev_hash: string;
      hash: string;
      event: string;
    }[];
    const records = rows.map((row) => ({ ...JSON.parse(row.event), seq: row.seq, prevHash: row.prev_hash, hash: row.hash }) as AuditRecord);
    const rebuilt: AuditRecord[] = [];
    for (const record of edit(records)) rebuilt.push(buildRecord(rebuilt.at(-1), record));
    db.exec('BEGIN');
    db.exec('DELETE FROM audit_records');
    const insert = db.prepare('INSERT INTO audit_records (seq, prev_hash, hash, event) VALUES (?, ?, ?, ?)');
    for (const { seq, prevHash, hash, ...event } of rebuilt) insert.run(seq, prevHash, hash, JSON.stringify(event));
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}
