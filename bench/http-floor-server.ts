import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import type { FloorStore } from './floor-store.ts';

/** What the floor's tool returns, as the Countersign server's bench tool does. */
const TOOL_RESULT = { ok: true };

/**
 * The durable floor: bare Hono + the minimum durable writes. The bare server's app shape
 * (same adapter, no middleware, one JSON parse and one JSON answer per POST) plus, per
 * round trip, exactly the sequential commits call-bound authorization cannot do without:
 * the proposal; the consume (an UPDATE that must change exactly one row) committed BEFORE
 * the tool runs or the grant is handed out; the result. No gate, no token, no audit chain,
 * no policy, no authentication. A measuring stick, not a product: any implementation that
 * keeps the durability does at least this work per round trip, so its rates and
 * latencies bound what Countersign can reach on this machine.
 *
 * propose + dispatch: /floor/propose, /floor/dispatch (consume, run, commit the result).
 * propose + authorize + complete: /floor/propose, /floor/authorize (consume), /floor/complete (result).
 * propose-and-authorize + complete: /floor/propose-authorized (the proposal recorded
 * consumed, one commit), /floor/complete (result).
 */
export function floorServer(store: FloorStore): Server {
  const app = new Hono();
  app.post('/floor/propose', async (c) => {
    const body = await c.req.json();
    const proposalId = await store.propose(JSON.stringify(body));
    return c.json({ outcomes: [{ status: 'allowed', proposalId }] });
  });
  app.post('/floor/propose-authorized', async (c) => {
    const body = await c.req.json();
    const proposalId = await store.proposeConsumed(JSON.stringify(body));
    return c.json({ outcomes: [{ status: 'allowed', proposalId, grant: { proposalId } }] });
  });
  app.post('/floor/dispatch', async (c) => {
    const { proposalId } = (await c.req.json()) as { proposalId: string };
    if (!(await store.consume(proposalId))) return c.json({ status: 'not_approved' }, 409);
    // The tool runs only now, after the consume is durable.
    const completion = { status: 'succeeded', result: TOOL_RESULT, completedAt: Date.now() };
    if (!(await store.complete(proposalId, JSON.stringify(completion)))) return c.json({ status: 'failed' }, 409);
    return c.json({ status: 'executed', result: TOOL_RESULT });
  });
  app.post('/floor/authorize', async (c) => {
    const { proposalId } = (await c.req.json()) as { proposalId: string };
    if (!(await store.consume(proposalId))) return c.json({ status: 'not_approved' }, 409);
    return c.json({ status: 'authorized', grant: { proposalId } });
  });
  app.post('/floor/complete', async (c) => {
    const { grant, completion } = (await c.req.json()) as { grant: { proposalId: string }; completion: unknown };
    if (!(await store.complete(grant.proposalId, JSON.stringify({ ...(completion as object), completedAt: Date.now() })))) {
      return c.json({ ok: false }, 409);
    }
    return c.json({ ok: true });
  });
  return createAdaptorServer({ fetch: app.fetch, hostname: '127.0.0.1' }) as Server;
}
