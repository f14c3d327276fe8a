import { type AuditEvent, verifyChain } from '@countersign/core/audit';
import { LedgerError } from '@countersign/core/ledger';
import { FINANCE, makeGateFixture, sampleProposal } from '@countersign/core/testing';
import { Client } from 'pg';
import { afterEach, expect, it, vi } from 'vitest';
import { createDatabase } from './open.ts';
import { ledgerSql } from './ledger-sql.ts';
import { PostgresAuditLog } from './postgres-audit-log.ts';
import { PostgresLedger } from './postgres-ledger.ts';
import { quoteSchema } from './schema-name.ts';
import { describePg, TEST_PG_URL } from './testing/test-database.ts';
import { countRoundTrips } from './testing/round-trip-counter.ts';
import { countSocketWrites } from './testing/socket-writes.ts';
import { tempParts } from './testing/temp-parts.ts';

const T0 = Date.UTC(2026, 0, 1);
const event = (callId: string): AuditEvent => ({ type: 'dispatch', at: T0, callId });

describePg('postgres round trips per step, and what the shortcuts must not break', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  async function open() {
    const t = await tempParts();
    cleanups.push(t.cleanup);
    return t;
  }
  /** A second replica (own pool, own head hint) on `schema`. */
  function replica(schema: string) {
    const db = createDatabase({ connectionString: TEST_PG_URL });
    cleanups.push(() => db.close());
    const audit = new PostgresAuditLog(db, quoteSchema(schema), schema);
    return { audit, ledger: new PostgresLedger(db, ledgerSql(quoteSchema(schema)), audit) };
  }

  it('an allowed call: propose, authorize and complete are one round trip each (the write, the chain lock, the conditional audit insert and COMMIT)', async () => {
    const { ledger, audit } = await open();
    const f = makeGateFixture({ ledger, audit });
    // Warm up: the head hint is unknown until this process has appended once.
    await f.gate.propose(f.call({ arguments: '{"amount":1,"to":"bob"}' }));
    const sent: string[] = [];
    // A round trip starts when a statement is sent with none in flight (the pool is
    // pipelined: statements sent back to back share one).
    const tripOf: number[] = [];
    let inFlight = 0;
    let trips = 0;
    const query = Client.prototype.query;
    vi.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const config = args[0] as string | { text: string };
      sent.push((typeof config === 'string' ? config : config.text).replace(/\s+/g, ' ').trim());
      if (inFlight === 0) trips++;
      tripOf.push(trips);
      const answer = (query as (...a: unknown[]) => unknown).apply(this, args) as Promise<unknown> | undefined;
      // pg-pool's own queries pass a callback and get no promise: not in a transaction, not counted.
      if (answer !== undefined) {
        inFlight++;
        answer.then(
          () => inFlight--,
          () => inFlight--,
        );
      }
      return answer as never;
    });
    const inTransaction = async <T>(step: () => Promise<T>): Promise<{ value: T; statements: string[]; trips: number }> => {
      sent.length = 0;
      tripOf.length = 0;
      const value = await step();
      const begin = sent.findIndex((s) => s.startsWith('BEGIN'));
      const end = sent.indexOf('COMMIT', begin);
      return { value, statements: sent.slice(begin, end + 1), trips: tripOf[end]! - tripOf[begin]! + 1 };
    };
    const call = f.call({ arguments: '{"amount":5,"to":"alice"}' });
    const shape = (statements: string[]) => statements.map((s) => s.slice(0, 30));
    const proposed = await inTransaction(() => f.gate.propose(call));
    expect(proposed.value.status).toBe('allowed');
    // The chain's lock comes last, right before the insert that reads the head and chains
    // in SQL, and COMMIT: it is never held across a round trip to this process.
    const tail = [expect.stringMatching(/^SELECT pg_advisory_xact_lock/), expect.stringMatching(/^WITH RECURSIVE input AS/), 'COMMIT'];
    // Issue #31: the proposal record is built before the insert (from the call as it will be
    // recorded) and sent behind it, under the flag the insert sets when it records the call;
    // nothing waits for the insert's answer (before: BEGIN and the insert, then the lock, an
    // unconditional chaining insert and COMMIT, two round trips).
    const conditionalTail = [tail[0], expect.stringMatching(/^WITH RECURSIVE given AS/), 'COMMIT'];
    // The warm-up claimed the run for this agent and committed: its next call skips the claim (RunOwners).
    expect(shape(proposed.statements)).toEqual(['BEGIN', expect.stringMatching(/^INSERT INTO /), ...conditionalTail]);
    expect(proposed.statements[1]).toMatch(/INSERT INTO .*proposals.*set_config\(\$18::text, 'y', true\)/);
    expect(proposed.statements[3]).toMatch(/INSERT INTO .*audit_records/);
    expect(proposed.trips).toBe(1);
    const authorized = await inTransaction(() => f.gate.authorize(f.dispatchFor(call)));
    if (authorized.value.status !== 'authorized') throw new Error(`not authorized: ${authorized.value.status}`);
    // Issue #31: the dispatch record is built before the consume and sent behind it, under
    // the flag the consume sets when it takes effect; nothing waits for the consume's answer.
    expect(shape(authorized.statements)).toEqual(['BEGIN', expect.stringMatching(/^WITH seen AS/), ...conditionalTail]);
    expect(authorized.statements[1]).toMatch(/set_config\(\$3::text/);
    expect(authorized.trips).toBe(1);
    const grant = authorized.value.grant;
    const completed = await inTransaction(() => f.gate.complete(grant, { status: 'succeeded', result: 1 }));
    expect(completed.value.ok).toBe(true);
    // The result, the read that explains a refusal (no row when stored), the record and COMMIT: one round trip.
    expect(shape(completed.statements)).toEqual(['BEGIN', expect.stringMatching(/^UPDATE /), expect.stringMatching(/^SELECT /), ...conditionalTail]);
    expect(completed.statements[1]).toMatch(/SET result_status/);
    expect(completed.trips).toBe(1);
    expect(verifyChain(await audit.read()).ok).toBe(true);
  });

  it('propose-and-authorize (authorizeAllowed): the allowed call is recorded consumed by the same statements and round trips as a plain propose, then complete: no consume step', async () => {
    const { ledger, audit } = await open();
    const f = makeGateFixture({ ledger, audit });
    // Warm up: the run's owner and the chain's head hint are known after one call.
    await f.gate.propose(f.call({ arguments: '{"amount":1,"to":"bob"}' }));
    const measure = countRoundTrips();
    const plain = await measure(() => f.gate.propose(f.call({ arguments: '{"amount":2,"to":"bob"}' })));
    const proposed = await measure(() => f.gate.propose(f.call({ arguments: '{"amount":3,"to":"bob"}', authorizeAllowed: true })));
    if (proposed.value.status !== 'allowed' || proposed.value.grant === undefined) throw new Error(`expected a grant, got ${JSON.stringify(proposed.value)}`);
    const shape = (statements: string[]) => statements.map((s) => s.slice(0, 30));
    expect(shape(proposed.statements)).toEqual(shape(plain.statements));
    expect(proposed.trips).toBe(plain.trips);
    expect((await ledger.getProposal(proposed.value.proposalId))?.state).toBe('dispatched');
    const grant = proposed.value.grant;
    const completed = await measure(() => f.gate.complete(grant, { status: 'succeeded', result: 1 }));
    expect(completed.value.ok).toBe(true);
    expect(completed.trips).toBe(1);
    expect((await audit.read()).slice(-3).map((r) => r.type)).toEqual(['proposal', 'dispatch', 'result']);
    expect(verifyChain(await audit.read()).ok).toBe(true);
  });

  it('the approved-call flow, step by step: round trips and statements (the figures issue #31 asks to lower)', async () => {
    const { ledger, audit } = await open();
    const f = makeGateFixture({ ledger, audit });
    // Warm up: the run's owner and the chain's head hint are known after one call.
    await f.proposeAndApprove({ arguments: '{"amount":400,"to":"bob"}' });
    const measure = countRoundTrips();
    const call = f.call({ arguments: '{"amount":500,"to":"alice"}' });
    const propose = await measure(() => f.gate.propose(call));
    if (propose.value.status !== 'approval_required') throw new Error(`expected approval_required, got ${propose.value.status}`);
    const { requestId } = propose.value;
    const decide = await measure(() => f.gate.approvals.decide(FINANCE, { requestId, decision: 'approve' }));
    expect(decide.value.ok).toBe(true);
    const token = await measure(() => f.gate.approvals.token(requestId));
    if (!token.value.ok) throw new Error(`no token: ${token.value.reason}`);
    const tokenText = token.value.token;
    const authorize = await measure(() => f.gate.authorize(f.dispatchFor(call, tokenText)));
    if (authorize.value.status !== 'authorized') throw new Error(`not authorized: ${authorize.value.status}`);
    const grant = authorize.value.grant;
    const complete = await measure(() => f.gate.complete(grant, { status: 'succeeded', result: 1 }));
    expect(complete.value.ok).toBe(true);
    const steps = { propose, decide, token, authorize, complete };
    if (process.env.SHOW_STATEMENTS) for (const [step, cost] of Object.entries(steps)) console.info(step, cost.statements.map((s) => s.slice(0, 90)));
    const table = Object.entries(steps).map(([step, cost]) => ({ step, trips: cost.trips, statements: cost.statements.length }));
    console.info(`round trips and statements per step, approved call:\n${table.map((r) => `  ${r.step.padEnd(9)} ${r.trips} trips  ${r.statements} statements`).join('\n')}`);
    // The figures as measured: a change that adds a round trip to a step fails here.
    // Before issue #31: propose 3 / 6, decide 8 / 11, token 2 / 2, authorize 3 / 6, complete 2 / 5.
    // decide: its lock and read, then its writes and read-back, each pipelined (8 -> 5).
    // propose: the proposal and its approval request inserted by one statement (3 -> 2).
    // authorize (the call's read, then its transaction) and complete: the audit record goes
    // out with the write and COMMIT, appended in SQL if the write took effect (3 -> 2, 2 -> 1).
    // propose: its record too, under the flag the insert sets when it records the call (2 -> 1).
    // decide (5 -> 2 trips, 11 -> 8 statements): the request and its call in one read
    // (getRequestWithProposal), then ONE round trip: BEGIN, the request's lock, the decision
    // decided and written in SQL on what the lock protects, the read-back, the chain's lock,
    // the insert of the record built for the status written (AuditByStatus), COMMIT.
    // token: the request and its call in one statement (getRequestWithProposal, 2 -> 1).
    // authorize: the token this gate just minted is checked against the rows it was minted
    // from (minted-calls.ts), so the consume's transaction is the only step (2 / 6 -> 1 / 5).
    expect(table).toEqual([
      { step: 'propose', trips: 1, statements: 5 },
      { step: 'decide', trips: 2, statements: 8 },
      { step: 'token', trips: 1, statements: 1 },
      { step: 'authorize', trips: 1, statements: 5 },
      { step: 'complete', trips: 1, statements: 6 },
    ]);
    expect(verifyChain(await audit.read()).ok).toBe(true);
  });

  it('the transactions of propose, authorize and complete each leave in one socket write (BEGIN, the write, lock, conditional insert and COMMIT)', async () => {
    const { ledger, audit } = await open();
    const f = makeGateFixture({ ledger, audit });
    await f.gate.propose(f.call({ arguments: '{"amount":1,"to":"bob"}' }));
    const writes = countSocketWrites();
    const call = f.call({ arguments: '{"amount":5,"to":"alice"}' });
    expect((await f.gate.propose(call)).status).toBe('allowed');
    // Issue #31: was 2 (BEGIN with the insert, then lock, insert and COMMIT).
    expect(writes()).toBe(1);
    const authorized = await f.gate.authorize(f.dispatchFor(call));
    if (authorized.status !== 'authorized') throw new Error(`not authorized: ${authorized.status}`);
    // The allowed call this gate just recorded: no read (see core's recorded-calls), the transaction in one write.
    // (Was 2: the call's read, then the transaction.)
    expect(writes()).toBe(1 + 1);
    // The grant authorize just issued: no read-back (see core's issued-grants), the transaction alone, in one write.
    expect((await f.gate.complete(authorized.grant, { status: 'succeeded', result: 1 })).ok).toBe(true);
    expect(writes()).toBe(2 + 1);
    // A lone audit append: BEGIN, lock, chaining insert and COMMIT in one write.
    await audit.append(event('alone'));
    expect(writes()).toBe(3 + 1);
    // The grant as an HTTP agent sends it back (a copy, unedited) to the gate that issued it: no read-back either.
    const copied = f.call({ arguments: '{"amount":6,"to":"alice"}' });
    expect((await f.gate.propose(copied)).status).toBe('allowed');
    const second = await f.gate.authorize(f.dispatchFor(copied));
    if (second.status !== 'authorized') throw new Error(`not authorized: ${second.status}`);
    let before = writes();
    expect((await f.gate.complete(JSON.parse(JSON.stringify(second.grant)), { status: 'succeeded', result: 1 })).ok).toBe(true);
    expect(writes() - before).toBe(1);
    // Another gate (a replica) holds nothing: it reads the call for authorize, and back for complete.
    const third = f.call({ arguments: '{"amount":7,"to":"alice"}' });
    expect((await f.gate.propose(third)).status).toBe('allowed');
    const replica = makeGateFixture({ ledger, audit });
    before = writes();
    const elsewhere = await replica.gate.authorize(f.dispatchFor(third));
    if (elsewhere.status !== 'authorized') throw new Error(`not authorized: ${elsewhere.status}`);
    expect(writes() - before).toBe(2);
    expect((await f.gate.complete(JSON.parse(JSON.stringify(elsewhere.grant)), { status: 'succeeded', result: 1 })).ok).toBe(true);
    expect(writes() - before).toBe(2 + 2);
    expect(verifyChain(await audit.read()).ok).toBe(true);
  });

  it('an audit insert the server refuses, sent with COMMIT behind it, commits nothing and is reported as a failure', async () => {
    const { db, ledger, audit, schema } = await open();
    // The insert fails on the server (as a constraint or disk error would), after COMMIT was already sent.
    await db.query(`CREATE FUNCTION "${schema}".refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom refused'; END $$;
      CREATE TRIGGER refuse_boom BEFORE INSERT ON "${schema}".audit_records FOR EACH ROW
      WHEN (NEW.event::text LIKE '%boom%') EXECUTE FUNCTION "${schema}".refuse_boom()`);
    const p = sampleProposal();
    await ledger.recordProposal(p, { audit: () => [event('proposed')] });
    const consumed = ledger.consume({ proposalId: p.proposalId, now: T0 + 1 }, () => [event('boom')]);
    await expect(consumed).rejects.toThrow(/boom refused/);
    // The spent call was rolled back with its record: still proposed, and a clean consume works once.
    expect((await ledger.getProposal(p.proposalId))?.state).toBe('proposed');
    expect(await ledger.consume({ proposalId: p.proposalId, now: T0 + 2 }, () => [event('dispatch')])).toMatchObject({ ok: true });
    expect(await ledger.consume({ proposalId: p.proposalId, now: T0 + 3 }, (c) => (c.ok ? [event('again')] : []))).toEqual({ ok: false, reason: 'already_consumed' });
    const records = await audit.read();
    expect(records.map((r) => r.callId)).toEqual(['proposed', 'dispatch']);
    expect(verifyChain(records)).toMatchObject({ ok: true, count: 2 });
  });

  it('a proposal and its request in one statement: a call already recorded opens no request, and a taken request id records no call', async () => {
    const { ledger, audit } = await open();
    const requestFor = (proposalId: string, requestId = `req-${proposalId}`) => ({
      requestId,
      createdAt: T0,
      expiresAt: T0 + 60_000,
      requiredApprovals: 1,
      eligible: { approvers: ['alice'] },
    });
    const first = sampleProposal({ runId: 'run-one-statement' });
    // The first call claims the run; the calls after it take the one-statement insert.
    await ledger.recordProposal(first, { request: requestFor(first.proposalId), audit: () => [event('first')] });
    const p = sampleProposal({ runId: 'run-one-statement' });
    const opened = await ledger.recordProposal(p, { request: requestFor(p.proposalId), audit: () => [event('p')] });
    expect(opened).toMatchObject({ ok: true, created: true, request: { requestId: `req-${p.proposalId}`, proposalId: p.proposalId, status: 'pending', decisions: [] } });
    // The same call again under a new proposal id (a retried propose): the stored call answers, nothing is opened.
    const again = { ...p, proposalId: `${p.proposalId}-again` };
    const repeated = await ledger.recordProposal(again, { request: requestFor(again.proposalId), audit: () => [event('again')] });
    expect(repeated).toMatchObject({ ok: true, created: false, proposal: { proposalId: p.proposalId } });
    expect(repeated.ok && repeated.request).toBeUndefined();
    expect(await ledger.getApprovalRequest(`req-${again.proposalId}`)).toBeUndefined();
    // A new call whose request id is taken: a typed duplicate_id, and neither the call nor its record is kept.
    const clash = sampleProposal({ runId: 'run-one-statement' });
    await expect(ledger.recordProposal(clash, { request: requestFor(clash.proposalId, `req-${p.proposalId}`), audit: () => [event('clash')] })).rejects.toMatchObject({
      code: 'duplicate_id',
    });
    expect(await ledger.getProposal(clash.proposalId)).toBeUndefined();
    expect((await ledger.getApprovalRequest(`req-${p.proposalId}`))?.proposalId).toBe(p.proposalId);
    const records = await audit.read();
    expect(records.map((r) => r.callId)).toEqual(['first', 'p', 'again']);
    expect(verifyChain(records)).toMatchObject({ ok: true, count: 3 });
  });

  it('two replicas appending in turn: a stale head hint never forks or breaks the chain', async () => {
    const a = await open();
    const b = replica(a.schema);
    for (let i = 0; i < 4; i++) {
      await a.audit.append(event(`a-${i}`));
      await b.audit.append(event(`b-${i}`));
      // Ledger writes with their records, through the same hint.
      const pa = sampleProposal();
      await a.ledger.recordProposal(pa, { audit: () => [event(`pa-${i}`)] });
      const pb = sampleProposal();
      await b.ledger.recordProposal(pb, { audit: () => [event(`pb-${i}`)] });
    }
    const records = await a.audit.read();
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(records.map((r) => r.callId)).toEqual(
      Array.from({ length: 4 }, (_, i) => [`a-${i}`, `b-${i}`, `pa-${i}`, `pb-${i}`]).flat(),
    );
    expect(verifyChain(records)).toMatchObject({ ok: true, count: 16 });
  });

  it('one batch mixing concurrent writes, a write that runs alone and a failing write: each gets its own answer', async () => {
    const { ledger, audit } = await open();
    const toConsume = sampleProposal();
    await ledger.recordProposal(toConsume);
    const toDecide = sampleProposal();
    const request = {
      requestId: `req-${toDecide.proposalId}`,
      proposalId: toDecide.proposalId,
      createdAt: T0,
      expiresAt: T0 + 60_000,
      requiredApprovals: 1,
      eligible: { approvers: ['alice'] },
    };
    await ledger.recordProposal(toDecide, { request });
    const taken = sampleProposal();
    await ledger.recordProposal(taken);
    const fresh = sampleProposal();
    const now = T0 + 1_000;
    // All submitted in one tick: one batch.
    const outcomes = await Promise.allSettled([
      ledger.recordProposal(fresh, { audit: () => [event('fresh')] }),
      ledger.addDecision(
        request.requestId,
        { approver: 'alice', decision: 'approve', at: now },
        { now, tokenIdIfApproved: 'tok-1', audit: () => [event('decided')] },
      ),
      // Same id in another run: duplicate_id, a write's own error.
      ledger.recordProposal({ ...sampleProposal(), proposalId: taken.proposalId }, { audit: () => [event('dup')] }),
      ledger.consume({ proposalId: toConsume.proposalId, now }, () => [event('consumed')]),
      ledger.consume({ proposalId: toConsume.proposalId, now }, () => [event('consumed-again')]),
    ]);
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { ok: true, created: true } });
    expect(outcomes[1]).toMatchObject({ status: 'fulfilled', value: { ok: true, request: { status: 'approved', tokenId: 'tok-1' } } });
    expect(outcomes[2]).toMatchObject({ status: 'rejected', reason: { code: 'duplicate_id' } });
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(LedgerError);
    expect(outcomes[3]).toMatchObject({ status: 'fulfilled', value: { ok: true } });
    expect(outcomes[4]).toMatchObject({ status: 'fulfilled', value: { ok: false, reason: 'already_consumed' } });
    const records = await audit.read();
    expect(records.map((r) => r.callId)).toEqual(['fresh', 'decided', 'consumed', 'consumed-again']);
    expect(verifyChain(records)).toMatchObject({ ok: true, count: 4 });
    expect(await ledger.getProposal(taken.proposalId)).toMatchObject({ runId: taken.runId });
  });

  it('two decisions on one request in one batch run one after the other: both count, no retry', async () => {
    const { db, ledger, audit } = await open();
    const proposal = sampleProposal();
    const request = {
      requestId: `req-${proposal.proposalId}`,
      proposalId: proposal.proposalId,
      createdAt: T0,
      expiresAt: T0 + 60_000,
      requiredApprovals: 2,
      eligible: { approvers: ['alice', 'bob'] },
    };
    await ledger.recordProposal(proposal, { request });
    const transaction = vi.spyOn(db, 'transactionWithTail');
    const now = T0 + 1_000;
    const decide = (approver: string) =>
      ledger.addDecision(request.requestId, { approver, decision: 'approve', at: now }, { now, tokenIdIfApproved: `tok-${approver}`, audit: () => [event(approver)] });
    const [first, second] = await Promise.all([decide('alice'), decide('bob')]);
    // Interleaved, both would read the same decisions and claim the same position: the
    // batch would fail and run again with savepoints (a second transaction).
    expect(transaction).toHaveBeenCalledTimes(1);
    expect(first).toMatchObject({ ok: true, request: { status: 'pending', decisions: [{ approver: 'alice' }] } });
    expect(second).toMatchObject({ ok: true, request: { status: 'approved', tokenId: 'tok-bob', decisions: [{ approver: 'alice' }, { approver: 'bob' }] } });
    expect((await audit.read()).map((r) => r.callId)).toEqual(['alice', 'bob']);
  });

  it('two replicas decide one 2-of-m request at once (issue #31 decide shape): both count, each appends the record of the status it wrote, one approver twice counts once', async () => {
    const a = await open();
    const b = replica(a.schema);
    const now = T0 + 1_000;
    // The records core builds before the write (AuditByStatus), one per status the decision can lead to.
    const byStatus = (approver: string) => ({
      byStatus: Object.fromEntries(['pending', 'approved'].map((status) => [status, [{ ...event(`${approver}:${status}`), actor: approver }]])),
    });
    const decide = (on: PostgresLedger, requestId: string, approver: string) =>
      on.addDecision(requestId, { approver, decision: 'approve', at: now }, { now, tokenIdIfApproved: `tok-${approver}`, audit: byStatus(approver) });
    const opened: string[] = [];
    for (let i = 0; i < 12; i++) {
      const proposal = sampleProposal();
      const requestId = `req-${proposal.proposalId}`;
      await a.ledger.recordProposal(proposal, {
        request: { requestId, createdAt: T0, expiresAt: T0 + 60_000, requiredApprovals: 2, eligible: { approvers: ['alice', 'bob'] } },
      });
      opened.push(requestId);
    }
    // Distinct approvers on the two replicas: separate transactions that meet on the request's lock.
    const pairs = await Promise.all(opened.slice(0, 8).map((id) => Promise.all([decide(a.ledger, id, 'alice'), decide(b.ledger, id, 'bob')])));
    for (const [i, pair] of pairs.entries()) {
      const statuses = pair.map((o) => (o.ok ? o.request.status : o.reason));
      expect([...statuses].sort(), opened[i]).toEqual(['approved', 'pending']);
    }
    // One approver on both replicas at once: one decision counts, the other is refused.
    const twice = await Promise.all(opened.slice(8).map((id) => Promise.all([decide(a.ledger, id, 'alice'), decide(b.ledger, id, 'alice')])));
    for (const pair of twice) expect(pair.map((o) => (o.ok ? o.request.status : o.reason)).sort()).toEqual(['duplicate_approver', 'pending']);
    const records = await a.audit.read();
    expect(verifyChain(records)).toMatchObject({ ok: true, count: 8 * 2 + 4 });
    // Each decision's record is the one of the status its own outcome reports.
    const answered = [...pairs.flat(), ...twice.flat()].flatMap((o) => (o.ok ? [`${o.request.decisions.at(-1)!.approver}:${o.request.status}`] : []));
    expect(records.map((r) => r.callId).sort()).toEqual(answered.sort());
    for (const id of opened.slice(0, 8)) {
      const stored = await a.ledger.getApprovalRequest(id);
      expect(stored?.decisions.map((d) => d.approver).sort()).toEqual(['alice', 'bob']);
      expect(stored?.status).toBe('approved');
    }
  });

  it('the first calls of one new run from two agents at once: exactly one owns the run', async () => {
    const a = await open();
    const b = replica(a.schema);
    // Without audit records: no chain lock serializes the two, so their claims really race
    // (the loser's claim waits for the winner's insert and sees no owner in its snapshot).
    for (let i = 0; i < 30; i++) {
      const runId = `run-race-${i}`;
      const [x, y] = await Promise.all([
        a.ledger.recordProposal(sampleProposal({ runId, agent: 'agent-a' })),
        b.ledger.recordProposal(sampleProposal({ runId, agent: 'agent-b' })),
      ]);
      const won = [x, y].filter((o) => o.ok);
      expect(won).toHaveLength(1);
      expect([x, y].filter((o) => !o.ok)).toEqual([{ ok: false, reason: 'run_owned_by_other_agent' }]);
      const owner = await a.ledger.getRunOwner(runId);
      expect(won[0]!.ok && won[0]!.proposal.agent).toBe(owner);
    }
  });
});
