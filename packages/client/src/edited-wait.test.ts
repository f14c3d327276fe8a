import { afterEach, expect, it } from 'vitest';
import { createClient } from './create-client.ts';
import { fakeServer } from './loopback.test-helper.ts';

// waitForDecision follows an edit only when the service says the request is `edited`:
// an `edited` link next to any other status (an old server, a tampering middlebox) is
// not an instruction to run another call.

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const view = (status: string) => ({ requestId: 'req-1', status, expiresAt: 1, edited: { requestId: 'req-evil', proposalId: 'p-evil', callId: 'c-evil' } });

async function waitAgainst(status: string) {
  const server = await fakeServer(() => Response.json(view(status)));
  closers.push(server.close);
  return createClient({ baseUrl: server.url, token: 't' }).waitForDecision('req-1', { timeoutMs: 2000 });
}

it('an edit link beside approved or denied is ignored: the outcome is the status, with no call to run instead', async () => {
  for (const status of ['approved', 'denied', 'revoked']) {
    const outcome = await waitAgainst(status);
    expect(outcome).toEqual({ ok: true, requestId: 'req-1', status });
  }
});

it('edited names the edited request, proposal and call id', async () => {
  expect(await waitAgainst('edited')).toEqual({ ok: true, requestId: 'req-1', status: 'edited', editedRequestId: 'req-evil', editedProposalId: 'p-evil', editedCallId: 'c-evil' });
});
