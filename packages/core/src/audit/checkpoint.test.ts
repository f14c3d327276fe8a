import { describe, expect, it } from 'vitest';
import { manualClock } from '../clock.ts';
import { signDecisionRecord } from '../token/decision-record.ts';
import { generateEd25519Key, hmacKey, Keyring } from '../token/keyring.ts';
import { signAuditCheckpoint, verifyAuditCheckpoint } from '../token/audit-checkpoint.ts';
import { buildRecord } from './chain.ts';
import { DEFAULT_MAX_UNSIGNED_TAIL } from './checkpoint-tracker.ts';
import { CheckpointingAuditLog, DEFAULT_CHECKPOINT_EVERY_RECORDS } from './checkpointing-audit-log.ts';
import { MemoryAuditLog } from './memory-audit-log.ts';
import type { AuditEvent, AuditRecord } from './types.ts';
import { verifyChain } from './verify-chain.ts';

const SECRET = 'a'.repeat(64);
const keyring = new Keyring([hmacKey('k1', SECRET)]);
const checkpoints = { keyring };

/** The events of a small workload: per call a proposal, verdict, dispatch and result; call 3 is denied. */
function callEvents(call: number, at: number): AuditEvent[] {
  const base = { runId: 'run-1', sessionId: 's-1', callId: `call-${call}`, proposalId: `p-${call}`, toolName: 'transfer', argsDigest: 'c'.repeat(64) };
  if (call === 3) {
    return [
      { ...base, type: 'proposal', at, actor: 'agent' },
      { ...base, type: 'approval_requested', at, requestId: 'r-3' },
      { ...base, type: 'decision', at, requestId: 'r-3', actor: 'alice', reason: 'too much', detail: { decision: 'deny' } },
      { ...base, type: 'rejection', at, reason: 'denied' },
    ];
  }
  return [
    { ...base, type: 'proposal', at, actor: 'agent' },
    { ...base, type: 'verdict', at, detail: { verdict: 'allow' } },
    { ...base, type: 'dispatch', at },
    { ...base, type: 'result', at, detail: { status: 'succeeded', resultDigest: 'd'.repeat(64) } },
  ];
}

/** A log written the way `serve` writes it: a checkpoint every 6 records and at close. */
async function writtenLog(calls = 6): Promise<AuditRecord[]> {
  const inner = new MemoryAuditLog();
  const clock = manualClock();
  const log = new CheckpointingAuditLog(inner, { keyring, clock, everyRecords: 6, everyMs: 0 });
  for (let call = 1; call <= calls; call++) {
    for (const event of callEvents(call, clock())) await log.append(event);
    clock.advance(1000);
  }
  await log.close();
  return [...inner.records()];
}

/** What someone with write access but no key does after editing: recompute every hash. */
function rehash(records: readonly AuditRecord[]): AuditRecord[] {
  const out: AuditRecord[] = [];
  for (const record of records) out.push(buildRecord(out.at(-1), record));
  return out;
}

const attacks: [string, (records: AuditRecord[]) => AuditRecord[]][] = [
  ['drop the dispatch and result records of a call', (r) => r.filter((x) => !(x.callId === 'call-2' && (x.type === 'dispatch' || x.type === 'result')))],
  ['remove a signed deny', (r) => r.filter((x) => !(x.type === 'decision' && x.callId === 'call-3'))],
  ['rewrite a result digest', (r) => r.map((x) => (x.type === 'result' && x.callId === 'call-1' ? { ...x, detail: { status: 'succeeded', resultDigest: 'e'.repeat(64) } } : x))],
  ['rewrite a rejection reason', (r) => r.map((x) => (x.type === 'rejection' ? { ...x, reason: 'expired' } : x))],
  ['erase every record of an executed call', (r) => r.filter((x) => x.callId !== 'call-4')],
];

describe('signed checkpoints against someone who can write the store but has no key', () => {
  it('the written log verifies with the key and says what the signatures cover', async () => {
    const records = await writtenLog();
    expect(records.filter((r) => r.type === 'checkpoint').length).toBeGreaterThanOrEqual(4);
    expect(records.at(-1)?.type).toBe('checkpoint');
    const last = records.at(-1)!;
    const verdict = verifyChain(records, { checkpoints });
    expect(verdict).toMatchObject({ ok: true, count: records.length, checkpoints: { signedSeq: last.seq - 1, unsignedTail: 1 } });
  });

  for (const [name, attack] of attacks) {
    it(`detects: ${name}, then re-hash`, async () => {
      const forged = rehash(attack(await writtenLog()));
      // The unkeyed chain cannot tell: this is the attack the issue describes.
      expect(verifyChain(forged)).toMatchObject({ ok: true });
      expect(verifyChain(forged, { checkpoints })).toMatchObject({ ok: false, reason: 'checkpoint_mismatch' });
    });
  }

  it('detects stripping every checkpoint (no_checkpoint) and forging one with another key (bad_checkpoint)', async () => {
    const records = await writtenLog();
    const stripped = rehash(attacks[1]![1](records).filter((r) => r.type !== 'checkpoint'));
    expect(verifyChain(stripped)).toMatchObject({ ok: true });
    expect(verifyChain(stripped, { checkpoints })).toMatchObject({ ok: false, reason: 'no_checkpoint' });

    const otherKey = new Keyring([hmacKey('k1', 'b'.repeat(64))]);
    const forged = [...stripped];
    const head = forged.at(-1)!;
    forged.push(buildRecord(head, { type: 'checkpoint', at: 0, detail: { checkpoint: signAuditCheckpoint(head, 0, otherKey) } }));
    expect(verifyChain(forged, { checkpoints })).toMatchObject({ ok: false, reason: 'bad_checkpoint', seq: head.seq + 1 });
  });

  it('a decision record or a garbage value in a checkpoint does not count as a signature', () => {
    const events = callEvents(1, 0);
    let records = rehash(events.map((e, i) => ({ ...e, seq: i + 1, prevHash: '', hash: '' })));
    const decision = signDecisionRecord(
      { run: 'run-1', sid: 's-1', call: 'call-1', tool: 'transfer', def: null, args: 'c'.repeat(64), sub: 'agent', req: 'r', prop: 'p', apr: 'a', dec: 'approve', rsn: null, edit: null, at: 0 },
      keyring,
    );
    for (const value of [decision, 'x.y.z', 42]) {
      records = rehash(records.filter((r) => r.type !== 'checkpoint'));
      const forged = [...records, buildRecord(records.at(-1), { type: 'checkpoint', at: 0, detail: { checkpoint: value } })];
      expect(verifyChain(forged, { checkpoints })).toMatchObject({ ok: false, reason: 'bad_checkpoint' });
    }
  });

  it('flags a tail longer than maxUnsignedTail after the last checkpoint', async () => {
    const records = await writtenLog();
    let extended = [...records];
    for (let i = 0; i < 5; i++) extended.push(buildRecord(extended.at(-1), callEvents(1, 0)[0]!));
    expect(verifyChain(extended, { checkpoints: { keyring, maxUnsignedTail: 6 } })).toMatchObject({ ok: true, checkpoints: { unsignedTail: 6 } });
    extended = [...extended, buildRecord(extended.at(-1), callEvents(1, 0)[0]!)];
    expect(verifyChain(extended, { checkpoints: { keyring, maxUnsignedTail: 6 } })).toMatchObject({ ok: false, reason: 'unsigned_tail' });
  });

  it('documented limit: records after the last checkpoint can be dropped, unless an anchor is kept elsewhere', async () => {
    const records = await writtenLog();
    // Truncate back to the second-to-last checkpoint: the final checkpoint and the records before it vanish.
    const cps = records.filter((r) => r.type === 'checkpoint');
    const cut = records.slice(0, cps.at(-2)!.seq);
    expect(verifyChain(cut, { checkpoints })).toMatchObject({ ok: true });
    const anchor = { seq: records.at(-1)!.seq, hash: records.at(-1)!.hash };
    expect(verifyChain(cut, { checkpoints, anchor })).toMatchObject({ ok: false, reason: 'truncated' });
  });

  it('a checkpoint may sign a head a few records back (another replica appended in between), never a later one', () => {
    const records = rehash(callEvents(1, 0).map((e, i) => ({ ...e, seq: i + 1, prevHash: '', hash: '' })));
    const signed = records[1]!;
    const ok = [...records, buildRecord(records.at(-1), { type: 'checkpoint', at: 0, detail: { checkpoint: signAuditCheckpoint(signed, 0, keyring) } })];
    expect(verifyChain(ok, { checkpoints })).toMatchObject({ ok: true, checkpoints: { count: 1, signedSeq: 2, unsignedTail: 3 } });
    const future = { seq: records.length + 1, hash: 'f'.repeat(64) };
    const bad = [...records, buildRecord(records.at(-1), { type: 'checkpoint', at: 0, detail: { checkpoint: signAuditCheckpoint(future, 0, keyring) } })];
    expect(verifyChain(bad, { checkpoints })).toMatchObject({ ok: false, reason: 'checkpoint_mismatch' });
  });

  it('Ed25519 checkpoints verify with the public key alone', async () => {
    const ed = generateEd25519Key('ed1');
    const signer = new Keyring([ed]);
    const inner = new MemoryAuditLog();
    const log = new CheckpointingAuditLog(inner, { keyring: signer, everyRecords: 3, everyMs: 0 });
    for (const event of [...callEvents(1, 0), ...callEvents(2, 0)]) await log.append(event);
    await log.close();
    const publicOnly = new Keyring([{ kid: 'ed1', alg: 'EdDSA', status: 'verify', publicKey: ed.publicKey }]);
    const records = [...inner.records()];
    expect(verifyChain(records, { checkpoints: { keyring: publicOnly } })).toMatchObject({ ok: true, checkpoints: { count: 3 } });
    expect(verifyChain(rehash(attacks[0]![1](records)), { checkpoints: { keyring: publicOnly } })).toMatchObject({ ok: false, reason: 'checkpoint_mismatch' });
    // An HMAC master secret with the same kid is not accepted for an EdDSA checkpoint.
    expect(verifyChain(records, { checkpoints: { keyring: new Keyring([hmacKey('ed1', SECRET)]) } })).toMatchObject({ ok: false, reason: 'bad_checkpoint' });
  });
});

describe('the unsigned tail a verifier accepts by default is one of serve\'s checkpoint intervals', () => {
  it('dropping the last checkpoint and rewriting the records it signed fails with the key', async () => {
    // Written as `serve` writes it (default interval), then the process stops without a
    // final checkpoint: a tail of 100 unsigned records follows the last checkpoint.
    const inner = new MemoryAuditLog();
    const log = new CheckpointingAuditLog(inner, { keyring, everyMs: 0 });
    for (let call = 1; call <= 275; call++) for (const event of callEvents(call, 0)) await log.append(event);
    const records = [...inner.records()];
    const signed = records.filter((r) => r.type === 'checkpoint');
    expect(signed.length).toBe(2);
    expect(records.length - signed.at(-1)!.seq).toBeLessThanOrEqual(DEFAULT_CHECKPOINT_EVERY_RECORDS);
    expect(verifyChain(records, { checkpoints })).toMatchObject({ ok: true });

    // Drop the last checkpoint, rewrite a result it signed, re-hash.
    const last = signed.at(-1)!;
    const forged = rehash(
      records
        .filter((r) => r.seq !== last.seq)
        .map((r) => (r.type === 'result' && r.seq > signed[0]!.seq && r.seq < last.seq ? { ...r, detail: { status: 'failed', resultDigest: 'e'.repeat(64) } } : r)),
    );
    expect(verifyChain(forged)).toMatchObject({ ok: true });
    expect(verifyChain(forged, { checkpoints })).toMatchObject({ ok: false, reason: 'unsigned_tail' });
    expect(DEFAULT_MAX_UNSIGNED_TAIL).toBe(DEFAULT_CHECKPOINT_EVERY_RECORDS);
  });
});

describe('CheckpointingAuditLog', () => {
  it('signs on a timer only while unsigned records exist, and never checkpoints a checkpoint', async () => {
    const inner = new MemoryAuditLog();
    const log = new CheckpointingAuditLog(inner, { keyring, everyRecords: 1000, everyMs: 0 });
    expect(await log.checkpoint()).toBeUndefined();
    await log.append(callEvents(1, 0)[0]!);
    const first = await log.checkpoint();
    expect(first?.type).toBe('checkpoint');
    expect(await log.checkpoint()).toBeUndefined();
    await log.close();
    expect(inner.records().map((r) => r.type)).toEqual(['proposal', 'checkpoint']);
    const check = verifyAuditCheckpoint(first?.detail?.checkpoint, keyring);
    expect(check).toMatchObject({ ok: true, claims: { seq: 1, hash: inner.records()[0]!.hash } });
  });

  it('reports a checkpoint it could not write instead of failing the append that triggered it', async () => {
    const errors: unknown[] = [];
    const verifyOnly = new Keyring([hmacKey('k1', SECRET, 'verify')]);
    const log = new CheckpointingAuditLog(new MemoryAuditLog(), { keyring: verifyOnly, everyRecords: 1, everyMs: 0, onError: (e) => errors.push(e) });
    await expect(log.append(callEvents(1, 0)[0]!)).resolves.toMatchObject({ seq: 1 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'no_active_key' });
  });
});
