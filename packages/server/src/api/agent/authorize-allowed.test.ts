import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, type ServerFixture } from '../../testing/server-fixture.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const READ = { id: 'c1', name: 'read_file', arguments: { path: 'a' } };

/** `authorizeAllowed`: propose-and-authorize over HTTP (the gate's behaviour is attacked by the attack kit, over the client too). */
describe('POST /proposals with authorizeAllowed', () => {
  it('answers an allowed call with its grant, recorded consumed', async () => {
    f = makeServerFixture();
    const res = await f.agent('POST', '/api/v1/proposals', { ...f.proposalBody([READ]), authorizeAllowed: true });
    expect(res.status).toBe(200);
    const { outcomes } = (await res.json()) as { outcomes: { status: string; grant?: { proposalId: string; canonicalArgs: string } }[] };
    expect(outcomes[0]).toMatchObject({ status: 'allowed', grant: { canonicalArgs: '{"path":"a"}' } });
    expect((await f.ledger.findProposalByCall('run-1', 'c1'))?.state).toBe('dispatched');
  });

  it('refuses a value that is not a boolean with 400 invalid_request before anything is recorded', async () => {
    f = makeServerFixture();
    for (const bad of ['yes', 1, null, {}]) {
      const res = await f.agent('POST', '/api/v1/proposals', { ...f.proposalBody([READ]), authorizeAllowed: bad });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
    expect(await f.ledger.findProposalByCall('run-1', 'c1')).toBeUndefined();
  });
});
