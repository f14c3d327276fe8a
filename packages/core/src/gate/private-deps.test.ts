import { describe, expect, it } from 'vitest';
import { makeGateFixture } from '../testing/gate-fixture.ts';

describe("the gate's dependencies are private", () => {
  // Stores, clock and tool index are reached only through the gate's operations, so no
  // caller (a server route, an adapter) can write to a store behind the gate's back.
  it('no deps property: not by name, not by destructuring, not among its keys', () => {
    const { gate } = makeGateFixture();
    expect('deps' in gate).toBe(false);
    // @ts-expect-error deps is not on Gate's public type (this line fails to typecheck if it comes back)
    const { deps } = gate;
    expect(deps).toBeUndefined();
    expect(Object.keys(gate)).not.toContain('deps');
  });

  it('a port waits for a decision through the public waitForDecision', async () => {
    const f = makeGateFixture();
    const proposed = await f.gate.propose(f.call({ arguments: { amount: 500, to: 'alice' } }));
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    expect(await f.gate.port().waitForDecision(proposed.requestId, { timeoutMs: 1 })).toMatchObject({ ok: true, status: 'pending' });
  });
});
