import type { AuditLog, AuditRecord } from '@countersign/core/audit';
import { CliError } from './cli-error.ts';

const PAGE_SIZE = 1000;

/** The whole chain, page by page in seq order, so a long chain is never held in memory at once. */
export async function* readAuditPages(audit: AuditLog): AsyncGenerator<AuditRecord[]> {
  let afterSeq = 0;
  for (;;) {
    let page: AuditRecord[];
    try {
      page = await audit.read({ afterSeq, limit: PAGE_SIZE });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new CliError('io', `cannot read the audit log after seq ${afterSeq}: ${message}`, { cause: error });
    }
    if (page.length === 0) return;
    yield page;
    const last = page.at(-1)!;
    // A store returning a record at or before afterSeq would loop forever; the verifier reports it.
    if (!Number.isSafeInteger(last.seq) || last.seq <= afterSeq) return;
    afterSeq = last.seq;
  }
}
