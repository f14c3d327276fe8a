import { describe, expect, it } from 'vitest';
import type { GatePort, Grant } from '../gate/index.ts';
import { CountersignRelayRefusal, type CompletionFailure, checkRelayedOrThrow, formatRefusal, memoryCallIndex, parseRefusal, proposeOrReject, refusalAtPropose } from './index.ts';
import { completeOrReport } from './grant-calls.ts';

const failingPort = (error: Error) =>
  ({
    checkRelayed: () => Promise.reject(error),
    propose: () => Promise.reject(error),
  }) as unknown as GatePort;

describe('integration kit', () => {
  it('a refusal text parses back to its typed reason; other text is not one', () => {
    const text = formatRefusal({ status: 'denied', reason: 'approval_denied', message: 'no: not\nnow' });
    expect(text).toBe('countersign:denied:approval_denied: no: not\nnow');
    expect(parseRefusal(text)).toEqual({ status: 'denied', reason: 'approval_denied', message: 'no: not\nnow' });
    for (const other of ['countersign:allowed:x: y', 'Xcountersign:denied:x: y', 'countersign:denied:Bad: y', 42, undefined]) {
      expect(parseRefusal(other), String(other)).toBeUndefined();
    }
  });

  it('an unreachable gate refuses the relay instead of letting it through', async () => {
    const refused = checkRelayedOrThrow(failingPort(new Error('down')), 'run-1', [{ callId: 'c1', content: 'x' }]);
    await expect(refused).rejects.toBeInstanceOf(CountersignRelayRefusal);
    await expect(refused).rejects.toMatchObject({
      reason: 'store_unavailable',
      message: 'countersign:relay_refused:store_unavailable: the gate could not be reached: down',
      detail: 'the gate could not be reached: down',
    });
    // Nothing relayed: nothing to check, the gate is not asked.
    await expect(checkRelayedOrThrow(failingPort(new Error('down')), 'run-1', [])).resolves.toBeUndefined();
  });

  it('propose never throws and gives one outcome per call', async () => {
    const calls = [
      { id: 'a', name: 't', arguments: {} },
      { id: 'b', name: 't', arguments: {} },
    ];
    const base = { runId: 'r', sessionId: 's', principal: 'p', toolCalls: calls };
    const down = await proposeOrReject(failingPort(new Error('down')), base);
    expect(down.map((o) => o.status === 'rejected' && o.reason)).toEqual(['store_unavailable', 'store_unavailable']);
    const short = await proposeOrReject({ propose: () => Promise.resolve([]) } as unknown as GatePort, base);
    expect(short.map((o) => o.status === 'rejected' && o.reason)).toEqual(['invalid_call', 'invalid_call']);
  });

  it('a propose outcome is a refusal only when denied or rejected (the proxy and the integrations read it the same way)', () => {
    expect(refusalAtPropose({ status: 'allowed', proposalId: 'p', callId: 'c', argsDigest: 'd' })).toBeUndefined();
    expect(refusalAtPropose({ status: 'approval_required', proposalId: 'p', callId: 'c', argsDigest: 'd', requestId: 'r', expiresAt: 1 })).toBeUndefined();
    expect(refusalAtPropose({ status: 'denied', reason: 'policy_deny', message: 'no', proposalId: 'p' })).toEqual({
      status: 'denied',
      reason: 'policy_deny',
      message: 'no',
      proposalId: 'p',
    });
    expect(refusalAtPropose({ status: 'rejected', reason: 'definition_mismatch', message: 'changed', reviewRequestId: 'rv' })).toEqual({
      status: 'rejected',
      reason: 'definition_mismatch',
      message: 'changed',
      reviewRequestId: 'rv',
    });
  });

  it('the memory call index drops its oldest entry past its bound', async () => {
    const index = memoryCallIndex({ maxEntries: 1 });
    index.set('r', 'a', { proposalId: 'pa', toolName: 't', argsDigest: 'd' });
    index.set('r', 'b', { proposalId: 'pb', toolName: 't', argsDigest: 'd' });
    expect(index.get('r', 'a')).toBeUndefined();
    expect(await index.get('r', 'b')).toMatchObject({ proposalId: 'pb' });
  });

  it('a lost completion is reported, never thrown: the tool ran and its result stands', async () => {
    const failures: CompletionFailure[] = [];
    const port = { complete: () => Promise.reject(new Error('down')) } as unknown as GatePort;
    await completeOrReport(port, { proposalId: 'p1' } as Grant, { status: 'succeeded', result: 1 }, (f) => failures.push(f));
    expect(failures).toEqual([{ proposalId: 'p1', reason: 'store_unavailable', message: 'the gate could not be reached: down' }]);
  });
});
