import { createHash } from 'node:crypto';
import type { ConsumeFailure, LedgerStore } from '@countersign/core/ledger';
import { runWorkers } from './harness.ts';

export interface ConsumeRaceResult {
  approvals: number;
  attempts: number;
  successes: number;
  ms: number;
  consumedPerSec: number;
  attemptsPerSec: number;
  /** Durable commits during the timed consumes alone (setup excluded), when the store counts them. */
  commits?: number | undefined;
  /** Empty when exactly-once held: one success per approval, every request consumed, losers told already_consumed. */
  problems: string[];
}

const ARGS = '{"amount":500,"to":"alice"}';
const ARGS_DIGEST = createHash('sha256').update(ARGS).digest('hex');

interface Approval {
  proposalId: string;
  requestId: string;
  tokenId: string;
}

/** Pre-creates `count` approved requests through the ledger API (untimed, `setupWorkers` at a time). */
async function createApprovals(ledger: LedgerStore, prefix: string, count: number, setupWorkers: number): Promise<Approval[]> {
  const now = Date.now();
  const approvals: Approval[] = Array.from({ length: count }, (_, i) => ({
    proposalId: `${prefix}-p${i}`,
    requestId: `${prefix}-r${i}`,
    tokenId: `${prefix}-t${i}`,
  }));
  let next = 0;
  await runWorkers(setupWorkers, async () => {
    for (let i = next++; i < count; i = next++) {
      const a = approvals[i]!;
      await ledger.recordProposal({
        proposalId: a.proposalId,
        runId: `${prefix}-run`,
        sessionId: 'session-bench',
        principal: 'user:bench',
        agent: 'bench',
        callId: `call-${i}`,
        toolName: 'transfer',
        canonicalArgs: ARGS,
        argsDigest: ARGS_DIGEST,
        createdAt: now,
      });
      await ledger.createApprovalRequest({
        requestId: a.requestId,
        proposalId: a.proposalId,
        createdAt: now,
        expiresAt: now + 3_600_000,
        requiredApprovals: 1,
        eligible: { approvers: ['approver-1'] },
      });
      const decided = await ledger.addDecision(
        a.requestId,
        { approver: 'approver-1', decision: 'approve', at: now },
        { now, tokenIdIfApproved: a.tokenId },
      );
      if (!decided.ok || decided.request.status !== 'approved') throw new Error(`bench setup: decision gave ${decided.ok ? decided.request.status : decided.reason}`);
    }
  });
  return approvals;
}

/**
 * Issue 3: `workers` concurrent clients consume `count` approvals, then exactly-once is
 * checked. With `attemptsPerApproval` 2 every approval is attempted by two different
 * workers at about the same moment (worker w takes the approvals i with i ≡ w and
 * i ≡ w − 1 mod workers, in order); with 1 each approval has one consumer (the normal case).
 */
export async function benchConsumeRace(
  ledger: LedgerStore,
  prefix: string,
  count: number,
  workers: number,
  attemptsPerApproval: 1 | 2 = 2,
  durableCommits?: () => number | undefined,
): Promise<ConsumeRaceResult> {
  const approvals = await createApprovals(ledger, prefix, count, workers);
  const wins = new Uint8Array(count);
  const losses = new Map<ConsumeFailure | 'error', number>();
  let successes = 0;
  let attempts = 0;

  const commitsBefore = durableCommits?.();
  const start = performance.now();
  await runWorkers(workers, async (w) => {
    for (let i = 0; i < count; i++) {
      const mine = i % workers === w || (attemptsPerApproval === 2 && (i + 1) % workers === w);
      if (!mine) continue;
      const a = approvals[i]!;
      attempts++;
      try {
        const result = await ledger.consume({ proposalId: a.proposalId, approval: { requestId: a.requestId, tokenId: a.tokenId }, now: Date.now() });
        if (result.ok) {
          successes++;
          wins[i]!++;
        } else {
          losses.set(result.reason, (losses.get(result.reason) ?? 0) + 1);
        }
      } catch {
        losses.set('error', (losses.get('error') ?? 0) + 1);
      }
    }
  });
  const ms = performance.now() - start;
  const commitsAfter = durableCommits?.();
  const commits = commitsBefore === undefined || commitsAfter === undefined ? undefined : commitsAfter - commitsBefore;

  const problems: string[] = [];
  if (successes !== count) problems.push(`${successes} successful consumptions for ${count} approvals`);
  const multiple = wins.filter((n) => n > 1).length;
  if (multiple > 0) problems.push(`${multiple} approvals consumed more than once`);
  for (const [reason, n] of losses) if (reason !== 'already_consumed') problems.push(`${n} attempts failed with ${reason}`);
  problems.push(...(await unconsumed(ledger, approvals, workers)));
  return { approvals: count, attempts, successes, ms, consumedPerSec: successes / (ms / 1000), attemptsPerSec: attempts / (ms / 1000), commits, problems };
}

/** Reads every request and proposal back: all must be consumed / dispatched. */
async function unconsumed(ledger: LedgerStore, approvals: readonly Approval[], workers: number): Promise<string[]> {
  let requests = 0;
  let proposals = 0;
  let next = 0;
  await runWorkers(workers, async () => {
    for (let i = next++; i < approvals.length; i = next++) {
      const a = approvals[i]!;
      if ((await ledger.getApprovalRequest(a.requestId))?.status !== 'consumed') requests++;
      if ((await ledger.getProposal(a.proposalId))?.state !== 'dispatched') proposals++;
    }
  });
  const problems: string[] = [];
  if (requests > 0) problems.push(`${requests} requests not in status consumed after the run`);
  if (proposals > 0) problems.push(`${proposals} proposals not dispatched after the run`);
  return problems;
}
