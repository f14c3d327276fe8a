import { type AuditEvent, type AuditLog, MemoryAuditLog, verifyChain } from '@countersign/core/audit';
import { runWorkers } from './harness.ts';

/** A dispatch record as the gate writes it (what most of a busy log is made of). */
export function sampleEvent(i: number): AuditEvent {
  return {
    type: i % 2 === 0 ? 'dispatch' : 'result',
    at: 1_780_000_000_000 + i,
    runId: 'run-bench',
    sessionId: 'session-bench',
    callId: `call-${i}`,
    proposalId: `proposal-${i}`,
    requestId: `request-${i}`,
    toolName: 'transfer',
    argsDigest: 'a'.repeat(64),
    actor: 'user:bench',
    detail: i % 2 === 0 ? { tokenId: `token-${i}` } : { resultDigest: 'b'.repeat(64) },
  };
}

export interface AppendResult {
  appends: number;
  ms: number;
  perSec: number;
  /** Empty when the records read back form one valid chain of the right length. */
  problems: string[];
}

/** `appenders` concurrent clients append `count` events in total, then the chain is read back and verified. */
export async function benchConcurrentAppends(audit: AuditLog, count: number, appenders: number): Promise<AppendResult> {
  const before = (await audit.head())?.seq ?? 0;
  let next = 0;
  const start = performance.now();
  await runWorkers(appenders, async () => {
    for (let i = next++; i < count; i = next++) await audit.append(sampleEvent(i));
  });
  const ms = performance.now() - start;

  const problems: string[] = [];
  const records = await audit.read();
  if (records.length !== before + count) problems.push(`read back ${records.length} records, expected ${before + count}`);
  const verdict = verifyChain(records);
  if (!verdict.ok) problems.push(`chain does not verify: ${verdict.reason} at seq ${verdict.seq}`);
  return { appends: count, ms, perSec: count / (ms / 1000), problems };
}

/** A memory log holding `count` records, read back as the verifier would get them. */
export async function memoryChain(count: number): Promise<unknown[]> {
  const log = new MemoryAuditLog();
  for (let i = 0; i < count; i++) await log.append(sampleEvent(i));
  return log.read();
}
