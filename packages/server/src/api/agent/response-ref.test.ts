import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, type ServerFixture } from '../../testing/server-fixture.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const CALL = { id: 'c1', name: 'read_file', arguments: { path: 'a' } };

/** `responseRef` is the one name of the model response id; the wire still accepts its older name. */
describe('POST /proposals: the model response id', () => {
  it('is kept under responseRef when sent under its older wire name modelResponseRef', async () => {
    f = makeServerFixture();
    const res = await f.agent('POST', '/api/v1/proposals', { ...f.proposalBody([CALL]), responseRef: undefined, modelResponseRef: 'resp_old' });
    expect(res.status).toBe(200);
    expect((await f.ledger.findProposalByCall('run-1', 'c1'))?.responseRef).toBe('resp_old');
  });

  it('refuses a body whose two names disagree with 400 before anything is recorded', async () => {
    f = makeServerFixture();
    const res = await f.agent('POST', '/api/v1/proposals', { ...f.proposalBody([CALL]), responseRef: 'resp_1', modelResponseRef: 'resp_2' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    expect(await f.ledger.findProposalByCall('run-1', 'c1')).toBeUndefined();
  });
});
