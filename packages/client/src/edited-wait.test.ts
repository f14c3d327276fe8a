import { afterEach, expect, expectTypeOf, it } from 'vitest';
import { createClient } from './create-client.ts';
import { fakeServer } from './loopback.test-helper.ts';

// waitForDecision follows an edit only when the service says the request is `edited`:
// an `edited` link next to any other status (an old server, a tampering middlebox) is
// not an instruction to run another call.

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const view = (status: string, edited: object | null) => ({ requestId: 'req-1', status, expiresAt: 1, ...(edited === null ? {} : { edited }) });

const EDIT_LINK = { requestId: 'req-evil', proposalId: 'p-evil', callId: 'c-evil' };

async function waitAgainst(status: string, edited: object | null = EDIT_LINK) {
  const server = await fakeServer(() => Response.json(view(status, edited)));
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

it('edited with no link to the edited call is not_found, never an `edited` outcome without ids', async () => {
  expect(await waitAgainst('edited', null)).toEqual({ ok: false, reason: 'not_found', message: 'approval request req-1 was edited, but the edited call is not named' });
});

it('narrowing by status gives the edited ids as strings', async () => {
  const outcome = await waitAgainst('edited');
  if (outcome.ok && outcome.status === 'edited') {
    expectTypeOf(outcome.editedProposalId).toEqualTypeOf<string>();
    expectTypeOf(outcome.editedRequestId).toEqualTypeOf<string>();
  }
});
