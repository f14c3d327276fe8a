import { type AuditReader, ChainVerifier } from '@countersign/core/audit';

export type ChainStatus =
  | { ok: true; count: number; headSeq: number | null }
  | { ok: false; brokenAtSeq: number | null; reason: string };

const PAGE = 1000;

/** Verifies the whole chain from genesis, a page at a time, so memory stays bounded. */
export async function chainStatus(audit: AuditReader): Promise<ChainStatus> {
  const verifier = new ChainVerifier();
  let afterSeq = 0;
  for (;;) {
    const page = await audit.read({ afterSeq, limit: PAGE });
    for (const record of page) {
      const failure = verifier.push(record);
      if (failure !== undefined) return { ok: false, brokenAtSeq: failure.seq ?? null, reason: failure.reason };
    }
    const last = page.at(-1);
    if (page.length < PAGE || last === undefined) break;
    afterSeq = last.seq;
  }
  const result = verifier.finish();
  if (!result.ok) return { ok: false, brokenAtSeq: result.seq ?? null, reason: result.reason };
  return { ok: true, count: result.count, headSeq: result.head?.seq ?? null };
}
