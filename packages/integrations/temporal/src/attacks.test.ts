import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hmacKey, Keyring } from '@countersign/core';
import { openSqliteStore } from '@countersign/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { failureOf, temporalFixture, WIRINGS } from './activities.test-helper.ts';
import { FAILURE_TYPES } from './workflow/contract.ts';

const BIG = { amount: 500, to: 'alice' };

async function approvedTransfer(f: ReturnType<typeof temporalFixture>, workflowId?: string) {
  const [outcome] = await f.propose([{ id: 'call-1', name: 'transfer', arguments: BIG }], workflowId);
  if (outcome?.status !== 'approval_required') throw new Error(String(outcome?.status));
  await f.approve(outcome.requestId);
  return outcome;
}

for (const wiring of WIRINGS) {
  describe(`the tool interceptor refuses a tool activity without a grant (${wiring})`, () => {
    it('scheduled with plain arguments (not through runTool): refused, the tool never runs', async () => {
      const f = temporalFixture({}, {}, wiring);
      await approvedTransfer(f);
      const refused = await failureOf(f.runActivity('transfer', f.tools.transfer, [BIG]));
      expect(refused.type).toBe(FAILURE_TYPES.noGrant);
      expect(f.ran).toEqual([]);
    });

    it('an envelope with extra arguments beside it: refused', async () => {
      const f = temporalFixture({}, {}, wiring);
      const outcome = await approvedTransfer(f);
      const refused = await failureOf(f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG), BIG]));
      expect(refused.type).toBe(FAILURE_TYPES.noGrant);
      expect(f.ran).toEqual([]);
    });

    it('any activity not listed as unguarded is a tool (deny by default); a listed one runs freely', async () => {
      const f = temporalFixture({}, { unguarded: ['send_email_digest'] }, wiring);
      const refused = await failureOf(f.runActivity('added_later', async () => 'ran', [{}]));
      expect(refused.type).toBe(FAILURE_TYPES.noGrant);
      expect(await f.runActivity('send_email_digest', async () => 'sent', [{}])).toBe('sent');
    });

    it("an approved transfer's reference on the delete_repo activity: refused (CASA check 3), delete_repo never runs", async () => {
      const f = temporalFixture({}, {}, wiring);
      const outcome = await approvedTransfer(f);
      const refused = await failureOf(f.runActivity('delete_repo', f.tools.delete_repo, [f.envelope(outcome, BIG)]));
      expect(refused.type).toBe(FAILURE_TYPES.notApproved);
      expect(f.ran).toEqual([]);
    });

    it("another workflow's approved call: refused (the run id is the workflow id, from Temporal)", async () => {
      const f = temporalFixture({}, {}, wiring);
      const outcome = await approvedTransfer(f, 'wf-victim');
      const refused = await failureOf(f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)], 'wf-attacker'));
      expect(refused.type).toBe(FAILURE_TYPES.notApproved);
      expect(f.ran).toEqual([]);
    });

    it('arguments changed in the workflow after approval: refused (CASA check 4); without a cross-check the ledger arguments run', async () => {
      const f = temporalFixture({}, {}, wiring);
      const outcome = await approvedTransfer(f);
      const refused = await failureOf(f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, { amount: 50_000, to: 'mallory' })]));
      expect(refused.type).toBe(FAILURE_TYPES.notApproved);
      expect(f.ran).toEqual([]);
      await f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, undefined)]);
      expect(f.ran).toEqual([{ tool: 'transfer', args: BIG }]);
    });

    it('a denied request: refused, never run', async () => {
      const f = temporalFixture({}, {}, wiring);
      const [outcome] = await f.propose([{ id: 'call-1', name: 'transfer', arguments: BIG }]);
      if (outcome?.status !== 'approval_required') throw new Error(String(outcome?.status));
      const decided = await f.gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId: outcome.requestId, decision: 'deny' });
      expect(decided.ok).toBe(true);
      const refused = await failureOf(f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)]));
      expect(refused.type).toBe(FAILURE_TYPES.denied);
      expect(refused.message).toContain('approval_denied');
      expect(f.ran).toEqual([]);
    });

    it("an approver's edit is followed (as in every adapter): the edited call runs, with the approver's arguments, once", async () => {
      const f = temporalFixture({}, {}, wiring);
      const [outcome] = await f.propose([{ id: 'call-1', name: 'transfer', arguments: BIG }]);
      if (outcome?.status !== 'approval_required') throw new Error(String(outcome?.status));
      const decided = await f.gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId: outcome.requestId, decision: 'approve', editedArguments: { amount: 50, to: 'alice' } });
      expect(decided.ok).toBe(true);
      expect(await f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)])).toEqual({ transferred: 50 });
      expect(f.ran).toEqual([{ tool: 'transfer', args: { amount: 50, to: 'alice' } }]);
      const replayed = await failureOf(f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)], undefined, 2));
      expect(replayed.type).toBe(FAILURE_TYPES.alreadyConsumed);
      expect(f.ran).toHaveLength(1);
    });

    it('an approved call scheduled under another call id, session or principal: refused (authorize cross-checks them), never run, the approval not spent', async () => {
      const f = temporalFixture({}, {}, wiring);
      const outcome = await approvedTransfer(f);
      const honest = f.envelope(outcome, BIG);
      for (const change of [{ callId: 'call-other' }, { sessionId: 's-other' }, { principal: 'user:mallory' }]) {
        const forged = { ...honest, countersign: { ...honest.countersign, ...change } };
        const refused = await failureOf(f.runActivity('transfer', f.tools.transfer, [forged]));
        expect(refused.type, JSON.stringify(change)).toBe(FAILURE_TYPES.notApproved);
      }
      expect(f.ran).toEqual([]);
      expect(await f.runActivity('transfer', f.tools.transfer, [honest])).toEqual({ transferred: BIG.amount });
    });

    it('a reference without its approval request id (no token): refused, nothing spent', async () => {
      const f = temporalFixture({}, {}, wiring);
      const outcome = await approvedTransfer(f);
      const refused = await failureOf(f.runActivity('transfer', f.tools.transfer, [f.envelope({ proposalId: outcome.proposalId }, BIG)]));
      expect(refused.type).toBe(FAILURE_TYPES.notApproved);
      expect(f.ran).toEqual([]);
      expect(await f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)])).toEqual({ transferred: 500 });
    });
  });

  describe(`store outage (${wiring})`, () => {
    it('authorize answers store_unavailable: a RETRYABLE failure, the tool does not run, the approval is still usable', async () => {
      const f = temporalFixture({}, {}, wiring);
      const outcome = await approvedTransfer(f);
      const authorize = f.port.authorize.bind(f.port);
      f.port.authorize = async () => ({ status: 'not_approved', reason: 'store_unavailable', message: 'db down' });
      const failure = (await f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)]).catch((e: unknown) => e)) as { type?: string; nonRetryable?: boolean };
      expect(failure).toMatchObject({ type: FAILURE_TYPES.storeUnavailable, nonRetryable: false });
      expect(f.ran).toEqual([]);
      f.port.authorize = authorize;
      expect(await f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)], undefined, 2)).toEqual({ transferred: 500 });
    });
  });

  describe(`crash and replay (at most once) (${wiring})`, () => {
    it('the worker dies while the tool runs; the retried attempt is refused already-consumed and the call reads "ran, result unknown"', async () => {
      const f = temporalFixture({}, {}, wiring);
      const outcome = await approvedTransfer(f);
      let started!: () => void;
      const toolStarted = new Promise<void>((resolve) => {
        started = resolve;
      });
      // First attempt: authorized, the tool starts, then the process "dies" (the promise never settles, complete never runs).
      const dying = async (args: unknown) => {
        f.ran.push({ tool: 'transfer', args });
        started();
        return new Promise(() => {});
      };
      void f.runActivity('transfer', dying, [f.envelope(outcome, BIG)]);
      await toolStarted;
      // Temporal retries the activity on another worker (attempt 2).
      const replayed = await failureOf(f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)], undefined, 2));
      expect(replayed.type).toBe(FAILURE_TYPES.alreadyConsumed);
      expect(replayed.message).toContain('ran, result unknown');
      expect(replayed.details[0]).toMatchObject({ ok: true, call: { state: 'dispatched' } });
      expect(f.ran).toHaveLength(1);
    });

    it('the worker dies after the tool returned but before complete: same, never a second run', async () => {
      const f = temporalFixture({}, {}, wiring);
      const outcome = await approvedTransfer(f);
      const complete = f.port.complete.bind(f.port);
      let reached!: () => void;
      const completing = new Promise<void>((resolve) => {
        reached = resolve;
      });
      f.port.complete = () => {
        reached();
        return new Promise(() => {});
      };
      void f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)]);
      await completing;
      f.port.complete = complete;
      const replayed = await failureOf(f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)], undefined, 2));
      expect(replayed.type).toBe(FAILURE_TYPES.alreadyConsumed);
      expect(f.ran).toHaveLength(1);
    });
  });

  describe(`an authorize answered outcome_unknown (the consume may have committed) (${wiring})`, () => {
    /** The gate's answer as a cut COMMIT reply leaves it; `commits` says whether the consume took effect. */
    function loseAuthorizeReply(f: ReturnType<typeof temporalFixture>, commits: boolean) {
      const authorize = f.port.authorize.bind(f.port);
      f.port.authorize = async (request) => {
        if (commits) await authorize(request);
        return { status: 'not_approved', reason: 'outcome_unknown', proposalId: request.proposalId, message: 'commit reply lost' };
      };
      return () => {
        f.port.authorize = authorize;
      };
    }

    it('the consume committed: a non-retryable CountersignOutcomeUnknown (not an ordinary refusal), the call reads dispatched, the tool never runs, and no retry runs it', async () => {
      const f = temporalFixture({}, {}, wiring);
      const outcome = await approvedTransfer(f);
      const restore = loseAuthorizeReply(f, true);
      const failure = await failureOf(f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)]));
      expect(failure.type).toBe(FAILURE_TYPES.outcomeUnknown);
      expect(failure.details[0]).toMatchObject({ kind: 'unknown', callState: 'dispatched', refusal: { reason: 'outcome_unknown' } });
      restore();
      const retried = await failureOf(f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)], undefined, 2));
      expect(retried.type).toBe(FAILURE_TYPES.alreadyConsumed);
      expect(f.ran).toEqual([]);
    });

    it('nothing was consumed (the call reads proposed): a retryable store-unavailable failure, and the retried attempt runs the tool once', async () => {
      const f = temporalFixture({}, {}, wiring);
      const outcome = await approvedTransfer(f);
      const restore = loseAuthorizeReply(f, false);
      const failure = (await f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)]).then(
        () => undefined,
        (error: unknown) => error,
      )) as { type?: string; nonRetryable?: boolean } | undefined;
      expect(failure).toMatchObject({ type: FAILURE_TYPES.storeUnavailable, nonRetryable: false });
      restore();
      expect(await f.runActivity('transfer', f.tools.transfer, [f.envelope(outcome, BIG)], undefined, 2)).toEqual({ transferred: BIG.amount });
      expect(f.ran).toHaveLength(1);
    });
  });
}

describe('restart: a new gate instance on the same SQLite file and master key', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('a token minted before the restart verifies after it; another master key refuses it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'countersign-temporal-'));
    const path = join(dir, 'db.sqlite');
    const before = openSqliteStore({ path });
    const a = temporalFixture({ ledger: before.ledger, audit: before.audit, definitions: before.definitions, trustOnFirstUse: true });
    const outcome = await approvedTransfer(a);
    const minted = await a.port.token(outcome.requestId);
    if (!minted.ok) throw new Error(minted.reason);
    await before.close();

    const after = openSqliteStore({ path });
    try {
      // A gate restarted with another secret refuses the token minted before (and spends nothing).
      const wrongKey = temporalFixture({
        ledger: after.ledger,
        audit: after.audit,
        definitions: after.definitions,
        keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 0x11))]),
      });
      const refused = await wrongKey.port.authorize({ proposalId: outcome.proposalId, token: minted.token, runId: 'wf-order-42' });
      expect(refused).toMatchObject({ status: 'not_approved' });

      const b = temporalFixture({ ledger: after.ledger, audit: after.audit, definitions: after.definitions });
      // The run key is derived from the master secret and the run id (= workflow id): same token, byte for byte.
      expect(await b.port.token(outcome.requestId)).toMatchObject({ ok: true, token: minted.token });
      expect(await b.runActivity('transfer', b.tools.transfer, [b.envelope(outcome, BIG)])).toEqual({ transferred: 500 });
      expect(await b.port.callStatus(outcome.proposalId)).toMatchObject({ ok: true, call: { state: 'succeeded' } });
    } finally {
      await after.close();
    }
  });

  it('the pre-restart token itself authorizes on the new instance', async () => {
    dir = mkdtempSync(join(tmpdir(), 'countersign-temporal-'));
    const path = join(dir, 'db.sqlite');
    const before = openSqliteStore({ path });
    const a = temporalFixture({ ledger: before.ledger, audit: before.audit, definitions: before.definitions, trustOnFirstUse: true });
    const outcome = await approvedTransfer(a);
    const minted = await a.port.token(outcome.requestId);
    if (!minted.ok) throw new Error(minted.reason);
    await before.close();
    const after = openSqliteStore({ path });
    try {
      const b = temporalFixture({ ledger: after.ledger, audit: after.audit, definitions: after.definitions });
      const authorized = await b.port.authorize({ proposalId: outcome.proposalId, token: minted.token, runId: 'wf-order-42' });
      expect(authorized.status).toBe('authorized');
    } finally {
      await after.close();
    }
  });
});
