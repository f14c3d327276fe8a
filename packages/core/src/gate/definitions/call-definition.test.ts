import { describe, expect, it } from 'vitest';
import { makeGateFixture } from '../../testing/gate-fixture.ts';

describe('the definition check at dispatch', () => {
  it('a call recorded before its tool was listed (no definition then) is refused as unknown_tool with that reason, not as a changed definition', async () => {
    const f = makeGateFixture();
    // The recorder (e.g. the LLM-API proxy) had not seen the tool listed yet when the model called it.
    const early = makeGateFixture({ tools: {}, ledger: f.ledger, audit: f.audit });
    const call = f.call({ toolName: 'transfer', arguments: { to: 'bob', amount: 5 } });
    expect(await early.gate.propose(call)).toMatchObject({ status: 'allowed' });
    const outcome = await f.gate.dispatch(f.dispatchFor(call));
    expect(outcome).toMatchObject({ status: 'denied', reason: 'unknown_tool' });
    expect(outcome.status === 'denied' && outcome.message).toBe('transfer was not a listed tool when the model called it (no definition was recorded with the call); ask the model again now that it is listed');
    expect(f.executions).toHaveLength(0);
  });
});
