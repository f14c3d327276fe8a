import { type AuditRecord, CheckpointingAuditLog } from '@countersign/core/audit';
import { Keyring, hmacKey } from '@countersign/core/token';
import { FIXTURE_SECRET, makeGateFixture } from '@countersign/core/testing';
import { openSqliteStore } from '@countersign/store-sqlite';

/**
 * A SQLite store at `path` with some history: an allowed call that ran, an approved
 * call that ran, an approved call still unused, and a denied one. Returns the token
 * of the unused approval and of the used one. The audit log is checkpointed the way
 * `serve` does it (here every `checkpointEvery` records, and at the end).
 */
export async function seedStore(path: string, keyring = new Keyring([hmacKey('k1', FIXTURE_SECRET)]), checkpointEvery = 8) {
  const store = openSqliteStore({ path });
  try {
    const audit = new CheckpointingAuditLog(store.audit, { keyring, everyRecords: checkpointEvery, everyMs: 0 });
    const fx = makeGateFixture({ ledger: store.ledger, audit, keyring });
    const allowed = fx.call({ arguments: '{"amount":5,"to":"bob"}' });
    await fx.gate.propose(allowed);
    await fx.gate.dispatch(fx.dispatchFor(allowed));
    const used = await fx.proposeAndApprove();
    const dispatched = await fx.gate.dispatch(fx.dispatchFor(used.call, used.token));
    if (dispatched.status !== 'executed') throw new Error(`seed dispatch: ${dispatched.status}`);
    const unused = await fx.proposeAndApprove({ arguments: '{"amount":700,"to":"carol"}' });
    await fx.gate.propose(fx.call({ toolName: 'delete_repo', arguments: '{"repo":"x"}' }));
    await audit.close();
    const records: AuditRecord[] = await store.audit.read();
    return { clock: fx.clock, unused, used, records, keyring };
  } finally {
    await store.close();
  }
}
