import { describe, expect, it } from 'vitest';
import { runInProcessExample } from './in-process.ts';

describe('the README in-process example', () => {
  it('runs the approved call once, with the arguments the model produced, and refuses the replay', async () => {
    const { first, replay, transfers } = await runInProcessExample();
    expect(first).toMatchObject({ status: 'executed' });
    expect(replay).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
    expect(transfers).toEqual([{ amount: 500, to: 'alice' }]);
  });
});
