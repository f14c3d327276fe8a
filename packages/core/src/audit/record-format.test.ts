import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkPasskeyEvidence } from '../passkey/evidence-check.ts';
import { testOfflineCheck } from '../passkey/test-device.test-helper.ts';
import { buildRecord, GENESIS_HASH, hashRecord } from './chain.ts';
import { formatScenario } from '../testing/format-scenario.test-helper.ts';
import { parseJsonl } from './jsonl.ts';
import { AUDIT_RECORD_FORMAT } from './record-format.ts';
import { mintedTokenOf, openedRequestOf, verdictOf } from './step-facts.ts';
import type { AuditRecord, AuditValue } from './types.ts';
import { verifyChain } from './verify-chain.ts';

// fixtures/format-1-chain.jsonl is `formatScenario()` as the format 1 code wrote it (commit
// 618917f, the last before format 2): a store written before this change. It must keep
// verifying, and the current code, replaying the same history, must tell the same facts.

function formatOneChain(): AuditRecord[] {
  const parsed = parseJsonl(readFileSync(new URL('./fixtures/format-1-chain.jsonl', import.meta.url), 'utf8'));
  if (!parsed.ok) throw new Error(`fixture: ${parsed.message}`);
  return parsed.records;
}

/** The chain with record `index` changed by `change` and every later hash recomputed: what someone able to rewrite the store makes. */
function rewritten(records: readonly AuditRecord[], index: number, change: (record: AuditRecord) => AuditRecord): AuditRecord[] {
  const out = records.slice(0, index);
  for (let i = index; i < records.length; i++) {
    const { seq, hash: _hash, prevHash: _prev, ...event } = i === index ? change(records[i]!) : records[i]!;
    const prevHash = out.at(-1)?.hash ?? GENESIS_HASH;
    // hashRecord, not buildRecord: buildRecord refuses to write a malformed record at all.
    out.push({ ...event, seq, prevHash, hash: hashRecord(prevHash, seq, event) } as AuditRecord);
  }
  return out;
}

function withDetail(record: AuditRecord, change: (detail: { [key: string]: AuditValue }) => void, top: Partial<AuditRecord> = {}): AuditRecord {
  const detail = structuredClone(record.detail ?? {});
  change(detail);
  return { ...record, ...top, detail };
}

/** The facts both formats prove, without the ids (each run draws its own). */
function facts(records: readonly AuditRecord[]) {
  return {
    verdicts: records.map(verdictOf).flatMap((v) => (v === undefined ? [] : [[v.verdict, v.ruleId, v.reason ?? null, v.tightenedBy ?? null]])),
    requests: records.map(openedRequestOf).flatMap((r) => (r === undefined ? [] : [[r.detail.expiresAt, r.detail.requiredApprovals, r.detail.ruleId, r.detail.passkey ?? null]])),
    tokens: records.map(mintedTokenOf).flatMap((t) => (t === undefined ? [] : [t.expiresAt])),
    decisions: records.filter((r) => r.type === 'decision').map((r) => [r.detail?.decision, r.detail?.status, r.reason ?? null, r.detail?.passkey !== undefined]),
    runs: records.filter((r) => r.type === 'dispatch' || r.type === 'result').map((r) => [r.type, r.toolName]),
  };
}

const first = (records: readonly AuditRecord[], test: (r: AuditRecord) => boolean) => records.findIndex(test);

describe('audit record format 2: one record per step', () => {
  it('a chain written before format 2 still verifies, passkey evidence included', async () => {
    const old = formatOneChain();
    expect(old.some((r) => r.type === 'verdict' || r.type === 'token_minted')).toBe(true);
    expect(old.some((r) => r.detail?.format !== undefined)).toBe(false);
    expect(verifyChain(old)).toMatchObject({ ok: true, count: old.length });
    expect(await checkPasskeyEvidence(old, testOfflineCheck)).toMatchObject({ verified: 3, problems: [] });
  });

  it('the current code writes one record per step and keeps every fact the format 1 records proved', async () => {
    const records = await formatScenario();
    expect(verifyChain(records)).toMatchObject({ ok: true });
    expect(records.filter((r) => r.type === 'verdict' || r.type === 'approval_requested' || r.type === 'token_minted')).toEqual([]);
    for (const r of records.filter((r) => r.type === 'proposal' || r.type === 'decision')) expect(r.detail?.format).toBe(AUDIT_RECORD_FORMAT);
    // Same history: 28 records in format 1, 16 in format 2.
    expect([formatOneChain().length, records.length]).toEqual([28, 16]);
    expect(facts(records)).toEqual(facts(formatOneChain()));
    expect(await checkPasskeyEvidence(records, testOfflineCheck)).toMatchObject({ verified: 3, problems: [] });
  });

  it('a format 2 proposal whose verdict was removed or altered fails verification', async () => {
    const records = await formatScenario();
    const denied = first(records, (r) => r.type === 'proposal' && r.detail?.verdict === 'deny');
    const opened = first(records, (r) => r.type === 'proposal' && r.requestId !== undefined);
    const cases: [string, number, (r: AuditRecord) => AuditRecord, RegExp][] = [
      ['verdict removed', denied, (r) => withDetail(r, (d) => delete d.verdict), /must carry its verdict/],
      ['verdict made up', denied, (r) => withDetail(r, (d) => (d.verdict = 'maybe')), /must carry its verdict/],
      ['ruleId removed', denied, (r) => withDetail(r, (d) => delete d.ruleId), /ruleId/],
      ['deny without its reason', denied, (r) => ({ ...r, reason: undefined }), /reason exactly when/],
      ['deny turned allow, reason kept', denied, (r) => withDetail(r, (d) => (d.verdict = 'allow')), /reason exactly when/],
      ['request without its deadline', opened, (r) => withDetail(r, (d) => delete d.expiresAt), /deadline/],
      ['request without its approval count', opened, (r) => withDetail(r, (d) => delete d.requiredApprovals), /requiredApprovals/],
      ['request without its rule', opened, (r) => withDetail(r, (d) => delete d.requestRuleId), /requestRuleId/],
      ['requestId removed, request kept', opened, (r) => ({ ...r, requestId: undefined }), /did not open/],
      ['passkey rule made optional', opened, (r) => withDetail(r, (d) => (d.passkey = 'preferred')), /passkey/],
      ['format marker stripped, verdict kept', opened, (r) => withDetail(r, (d) => delete d.format), /format 1 proposal record carries format 2 fields/],
      ['unknown format', opened, (r) => withDetail(r, (d) => (d.format = 3)), /unknown audit record format 3/],
    ];
    for (const [name, index, change, message] of cases) {
      expect(index, name).toBeGreaterThan(0);
      // Edited in place: the hash gives it away.
      const edited = records.map((r, i) => (i === index ? change(r) : r));
      expect(verifyChain(edited), name).toMatchObject({ ok: false, index });
      // Rewritten with every later hash recomputed: the record itself no longer holds its step's facts.
      expect(verifyChain(rewritten(records, index, change)), name).toMatchObject({ ok: false, reason: 'malformed', index, message: expect.stringMatching(message) });
      // And no store writes it in the first place.
      const { seq: _s, prevHash: _p, hash: _h, ...event } = change(records[index]!);
      expect(() => buildRecord(records[index - 1], event), name).toThrow(message);
    }
    // The one change that keeps the record well-formed is caught by the hash alone.
    const flipped = records.map((r, i) => (i === denied ? withDetail(r, (d) => (d.ruleId = 'reads')) : r));
    expect(verifyChain(flipped)).toMatchObject({ ok: false, reason: 'hash_mismatch', index: denied });
  });

  it('a format 2 decision that approved its request must carry the token it minted', async () => {
    const records = await formatScenario();
    const approving = first(records, (r) => r.type === 'decision' && r.detail?.status === 'approved');
    const denying = first(records, (r) => r.type === 'decision' && r.detail?.status === 'denied');
    const cases: [string, number, (r: AuditRecord) => AuditRecord, RegExp][] = [
      ['token removed', approving, (r) => withDetail(r, (d) => {
          delete d.tokenId;
          delete d.tokenExpiresAt;
        }), /token exactly when/],
      ['token without its id', approving, (r) => withDetail(r, (d) => delete d.tokenId), /tokenId and tokenExpiresAt/],
      ['a denial with a token', denying, (r) => withDetail(r, (d) => (d.tokenId = 't')), /token exactly when/],
      ['signed record removed', approving, (r) => withDetail(r, (d) => delete d.record), /signed decision record/],
      ['format marker stripped, token kept', approving, (r) => withDetail(r, (d) => delete d.format), /format 1 decision record carries format 2 fields/],
    ];
    for (const [name, index, change, message] of cases) {
      expect(index, name).toBeGreaterThan(0);
      expect(verifyChain(rewritten(records, index, change)), name).toMatchObject({ ok: false, reason: 'malformed', index, message: expect.stringMatching(message) });
    }
  });

  it('flags what no writer produces: format 1 follow-up records carrying a marker, a request opened twice', async () => {
    const old = formatOneChain();
    const verdict = first(old, (r) => r.type === 'verdict');
    const minted = first(old, (r) => r.type === 'token_minted');
    for (const index of [verdict, minted]) {
      expect(verifyChain(rewritten(old, index, (r) => withDetail(r, (d) => (d.format = 2))))).toMatchObject({ ok: false, reason: 'malformed', index });
    }
    // A later record reopening a passkey request without the rule (either format) would let a decision without a passkey count.
    const records = await formatScenario();
    const opened = records.find((r) => openedRequestOf(r)?.detail.passkey === 'required')!;
    const reopened = buildRecord(records.at(-1), { type: 'approval_requested', at: opened.at, proposalId: opened.proposalId, requestId: opened.requestId, detail: { expiresAt: opened.at + 1, requiredApprovals: 1, ruleId: null } });
    expect(verifyChain([...records, reopened])).toMatchObject({ ok: true });
    const report = await checkPasskeyEvidence([...records, reopened], testOfflineCheck);
    expect(report.problems).toEqual([{ seq: reopened.seq, reason: expect.stringMatching(/^request_reopened/) }]);
  });

  it('a chain written while replicas of both formats share a store verifies: format 1 records, then format 2', async () => {
    const old = formatOneChain();
    const mixed = [...old];
    for (const r of await formatScenario()) {
      const { seq: _s, prevHash: _p, hash: _h, ...event } = r;
      mixed.push(buildRecord(mixed.at(-1), event));
    }
    expect(verifyChain(mixed)).toMatchObject({ ok: true, count: old.length + 16 });
  });
});
