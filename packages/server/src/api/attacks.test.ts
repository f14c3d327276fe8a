import { makeGateFixture, requestView } from '@countersign/core/testing';
import { MemoryLedger } from '@countersign/core/ledger';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../app/create-app.ts';
import { FIONA_TOKEN, makeServerFixture, ORIGIN, type ServerFixture, TEST_AUTH } from '../testing/server-fixture.ts';
import type { ApprovalView } from '../views/request-views.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const errorCode = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

/** Everything an attack could have changed: the request, the executions, the audit log. */
async function snapshot(requestId: string) {
  const view = await requestView(f.gate, requestId);
  return { request: view?.request, proposal: view?.proposal, executions: f.executions.length, audit: (await f.audit.read()).length };
}

describe('seed 004: a decision carries the request id and the choice, nothing else', () => {
  const extras: Array<[string, Record<string, unknown>]> = [
    ['a swapped tool name', { toolName: 'delete_all_emails' }],
    ['different arguments', { arguments: '{"amount":1000000,"to":"mallory"}' }],
    ['an approver identity', { approver: 'someone-else' }],
    ['a principal', { principal: 'user:1' }],
    ['a client-supplied message history', { messages: [{ role: 'assistant', tool_calls: [{ id: 'call-1', function: { name: 'delete_all_emails', arguments: '{}' } }] }] }],
    ['a call id', { callId: 'call-9' }],
  ];

  it.each(extras)('%s → 400 unknown_field, nothing changes', async (_name, extra) => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const before = await snapshot(requestId);
    for (const decision of ['approve', 'deny']) {
      const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision, ...extra });
      expect(res.status).toBe(400);
      expect(await errorCode(res)).toBe('unknown_field');
    }
    expect(await snapshot(requestId)).toEqual(before);
    expect(before.request?.status).toBe('pending');
  });

  it('a duplicated key cannot smuggle a second decision past the parser', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const before = await snapshot(requestId);
    const res = await f.fiona('POST', '/api/v1/decisions', `{"requestId":"${requestId}","decision":"deny","decision":"approve"}`);
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('invalid_json_value');
    expect(await snapshot(requestId)).toEqual(before);
  });

  it('editedArguments only go with approve', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'deny', editedArguments: { amount: 1 } });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('invalid_request');
  });

  it('the approver recorded is the authenticated one', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' });
    const records = await f.audit.read();
    expect(records.filter((r) => r.type === 'decision').map((r) => r.actor)).toEqual(['fiona']);
    expect((await requestView(f.gate, requestId))?.request.decisions.map((d) => d.approver)).toEqual(['fiona']);
  });
});

describe('eligibility, expiry and finality', () => {
  it('a non-eligible approver can neither see nor decide, and cannot tell the request exists', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const before = await snapshot(requestId);
    expect(((await (await f.oscar('GET', '/api/v1/approvals')).json()) as { approvals: unknown[] }).approvals).toEqual([]);
    const seen = await f.oscar('GET', `/api/v1/approvals/${requestId}`);
    const ghost = await f.oscar('GET', '/api/v1/approvals/no-such-request');
    expect(seen.status).toBe(404);
    expect(await seen.json()).toEqual(await ghost.json());
    const decided = await f.oscar('POST', '/api/v1/decisions', { requestId, decision: 'approve' });
    const ghostDecided = await f.oscar('POST', '/api/v1/decisions', { requestId: 'no-such-request', decision: 'approve' });
    expect(decided.status).toBe(404);
    expect(await decided.json()).toEqual(await ghostDecided.json());
    expect(await snapshot(requestId)).toEqual(before);
  });

  it('an expired request → 409 expired', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    f.clock.advance(601_000);
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' });
    expect(res.status).toBe(409);
    expect(await errorCode(res)).toBe('expired');
    const edit = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', editedArguments: { amount: 1, to: 'a' } });
    expect(await errorCode(edit)).toBe('expired');
    expect(((await (await f.fiona('GET', `/api/v1/approvals/${requestId}`)).json()) as ApprovalView).status).toBe('expired');
  });

  it('an already decided request → 409 already_decided', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'deny' })).status).toBe(200);
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' });
    expect(res.status).toBe(409);
    expect(await errorCode(res)).toBe('already_decided');
    expect((await requestView(f.gate, requestId))?.status).toBe('denied');
  });

  it.each([
    ['duplicate keys', '{"amount":500,"amount":5,"to":"alice"}'],
    ['not JSON', '{amount: 500}'],
    ['not an object', '[500, "alice"]'],
    ['a number that loses precision', '{"amount":9007199254740993,"to":"alice"}'],
    ['a forbidden key', '{"__proto__":{"admin":true},"amount":5}'],
  ])('edited arguments with %s → 400 invalid_arguments, request stays pending', async (_name, edited) => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const before = await snapshot(requestId);
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', editedArguments: edited });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('invalid_arguments');
    expect(await snapshot(requestId)).toEqual(before);
  });
});

describe('hostile HTTP input gets typed 4xx, never a stack trace', () => {
  it('malformed JSON → 400 malformed_json', async () => {
    f = makeServerFixture();
    for (const body of ['{"requestId":', 'not json', '', '{"a":1}}']) {
      const res = await f.fiona('POST', '/api/v1/decisions', body);
      expect(res.status).toBe(400);
      expect(await errorCode(res)).toBe('malformed_json');
    }
  });

  it('a wrong content-type → 415', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await f.send('POST', '/api/v1/decisions', FIONA_TOKEN, undefined, { 'content-type': type });
      expect(res.status).toBe(415);
      expect(await errorCode(res)).toBe('unsupported_media_type');
    }
    const missing = await f.app.request(`${ORIGIN}/api/v1/decisions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FIONA_TOKEN}` },
      body: JSON.stringify({ requestId, decision: 'approve' }),
    });
    expect([415]).toContain(missing.status);
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
  });

  it('JSON declared in any charset but UTF-8 → 415, nothing changes', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const body = JSON.stringify({ requestId, decision: 'approve' });
    for (const type of [
      'application/json; charset=utf-16',
      'application/json; charset=UTF-16LE',
      'application/json;charset="iso-8859-1"',
      'application/json; charset=utf-8; charset=utf-16',
      'application/json; charset',
    ]) {
      const res = await f.send('POST', '/api/v1/decisions', FIONA_TOKEN, body, { 'content-type': type });
      expect(res.status, type).toBe(415);
      expect(await errorCode(res)).toBe('unsupported_media_type');
    }
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
    // UTF-8, however it is spelt, is read: the first approves, the second finds it decided.
    const statuses = [];
    for (const type of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"']) {
      statuses.push((await f.send('POST', '/api/v1/decisions', FIONA_TOKEN, body, { 'content-type': type })).status);
    }
    expect(statuses[0]).toBe(200);
    expect(statuses[1]).not.toBe(415);
    expect((await requestView(f.gate, requestId))?.status).toBe('approved');
  });

  it('a huge body → 413, with or without a content-length', async () => {
    f = makeServerFixture({ bodyLimitBytes: 4096 });
    const huge = JSON.stringify({ requestId: 'x', decision: 'approve', reason: 'a'.repeat(10_000) });
    const declared = await f.fiona('POST', '/api/v1/decisions', huge);
    expect(declared.status).toBe(413);
    expect(await errorCode(declared)).toBe('payload_too_large');
    const streamed = await f.app.request(`${ORIGIN}/api/v1/decisions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FIONA_TOKEN}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1000)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await errorCode(streamed)).toBe('payload_too_large');
  });

  it('deeply nested arguments → 400, before anything is recorded', async () => {
    f = makeServerFixture();
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    const asText = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'c', name: 'transfer', arguments: deep(100) }]));
    expect(await asText.json()).toMatchObject({ outcomes: [{ status: 'rejected', reason: 'invalid_arguments' }] });
    const body = `{"runId":"r","sessionId":"s","principal":"p","toolCalls":[{"id":"c","name":"transfer","arguments":${deep(100)}}]}`;
    const asObject = await f.agent('POST', '/api/v1/proposals', body);
    expect(asObject.status).toBe(400);
    expect(await errorCode(asObject)).toBe('nesting_too_deep');
    const bomb = await f.agent('POST', '/api/v1/proposals', '['.repeat(100_000));
    expect(bomb.status).toBe(400);
    expect(await errorCode(bomb)).toBe('nesting_too_deep');
    expect(await f.ledger.findProposalByCall('r', 'c')).toBeUndefined();
  });

  it('unknown routes and methods → 404 JSON', async () => {
    f = makeServerFixture();
    for (const [method, path] of [
      ['GET', '/api/v1/nope'],
      ['GET', '/api/v1/decisions'],
      ['DELETE', '/api/v1/approvals/x'],
      ['GET', '/definitely/not/here'],
    ] as const) {
      const res = await f.fiona(method, path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
  });

  it('a failing store → 503 with a generic message (no internals leak)', async () => {
    const ledger = new MemoryLedger();
    const broken = Object.assign(Object.create(ledger) as MemoryLedger, {
      getApprovalRequest: async () => {
        throw new Error('ECONNREFUSED 10.0.0.7:5432 password=hunter2');
      },
    });
    const gate = makeGateFixture({ ledger: broken });
    const { app, close } = createApp({ gate: gate.gate, auth: TEST_AUTH });
    try {
      for (const path of ['/api/v1/approvals/x']) {
        const res = await app.request(`http://x${path}`, { headers: { authorization: `Bearer ${FIONA_TOKEN}` } });
        expect(res.status).toBe(503);
        const text = await res.text();
        expect(JSON.parse(text)).toEqual({ error: { code: 'store_unavailable', message: 'the approval store is unavailable' } });
        expect(text).not.toMatch(/ECONNREFUSED|hunter2|\bat\s/);
      }
    } finally {
      await close();
    }
  });
});

describe('security headers', () => {
  it('are on every response: JSON, errors, 404s, pages, the stylesheet', async () => {
    f = makeServerFixture();
    const responses = [
      await f.fiona('GET', '/api/v1/approvals'),
      await f.send('GET', '/api/v1/approvals', undefined),
      await f.fiona('GET', '/nowhere'),
      await f.send('GET', '/login', undefined),
      await f.send('GET', '/', undefined),
      await f.fiona('POST', '/api/v1/decisions', '{'),
      await f.send('GET', '/assets/style.css', undefined),
    ];
    for (const res of responses) {
      expect(res.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
    }
    for (const res of responses.slice(0, -1)) expect(res.headers.get('cache-control')).toBe('no-store');
    expect(responses.at(-1)?.headers.get('content-type')).toMatch(/^text\/css/);
  });
});
