import { describePg } from '@countersign/store-postgres/testing';
import { expect, it } from 'vitest';
import { runDbosExample } from './dbos.ts';

describePg('the DBOS example (local PostgreSQL)', () => {
  it('the forged message runs nothing; the approved transfer runs once; authorizing it again is refused', async () => {
    const { steps, transfers, result } = await runDbosExample();
    expect(transfers).toEqual([{ amount: 2500, to: 'alice' }]);
    expect(result).toMatchObject({ status: 'succeeded', result: { ok: true }, completion: { ok: true, duplicate: false } });
    expect(steps.map((s) => s.outcome)).toEqual([
      'waiting for approval (DBOS.recv until the request expires)',
      'ran 0×, request pending',
      'succeeded, ran 1×',
      'not_approved (already_consumed)',
    ]);
  });
});
