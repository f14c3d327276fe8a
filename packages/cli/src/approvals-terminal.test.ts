import { requestView } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { AGENT_TOKEN, FIONA_TOKEN, OSCAR_TOKEN, type ServerFixture } from '@countersign/server/test-kit';
import { APPROVER_TOKEN_ENV } from './approver-http.ts';
import { runCaptured } from './testing/capture-io.ts';
import { liveFixturePerTest } from './testing/live-fixture.ts';

// The terminal approver against a live server: list, show, approve (also --edit) and
// deny over the HTTP API, with the page's display-safety rendering and exit codes
// 0 ok, 1 refused, 2 usage / token / connection.

let f: ServerFixture;
const server = liveFixturePerTest();

/** The fixture's app on a real port, so the CLI talks HTTP to it like to any running service. */
async function live(): Promise<string> {
  const url = await server.start();
  f = server.fixture();
  return url;
}

const cli = (args: string[], token: string | undefined = FIONA_TOKEN) => runCaptured(['approvals', ...args], { cwd: process.cwd(), env: { [APPROVER_TOKEN_ENV]: token } });

/** Characters that must never reach a terminal raw: bidi override, zero-width space, escape (ANSI), a Cyrillic look-alike. */
const HOSTILE = { amount: 500, to: 'acct-\u202E4321\u202C', memo: 'ok\u200B\u001b[2J', payee: '\u0430lice' };
const RAW = ['\u202E', '\u200B', '\u001b', '\u0430'];

describe('countersign approvals list and show', () => {
  it('list shows the pending call on one line; a hostile call is flagged and escaped, never raw', async () => {
    const url = await live();
    const plain = await f.proposeTransfer({ amount: 500, to: 'alice' }, 'call-plain');
    const hostile = await f.proposeTransfer(HOSTILE, 'call-hostile');
    const run = await cli(['list', '--url', url]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ {3}ID +TOOL +PRINCIPAL +APPR +EXPIRES +ARGUMENTS$/);
    // Every line fits 80 columns, and the columns line up under the header.
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    for (const column of ['TOOL', 'PRINCIPAL', 'APPR', 'ARGUMENTS']) {
      const at = lines[0]!.indexOf(column);
      expect(new Set(lines.slice(1).map((l) => l[at - 1]))).toEqual(new Set([' ']));
    }
    // Each line shows the shortest unique start of its id.
    const lineOf = (requestId: string) => lines.slice(1).find((l) => requestId.startsWith(l.slice(3).split(' ')[0]!))!;
    const plainLine = lineOf(plain.requestId);
    const hostileLine = lineOf(hostile.requestId);
    expect(plainLine).not.toBe(hostileLine);
    expect(plainLine).toMatch(/^ {3}/);
    // The fixture's clock is not the terminal's: the expiry reads relative to the real now, whichever way.
    expect(plainLine).toMatch(/ transfer +user:42 +0\/1 +(in \d+[smhd]|\d+[smhd] ago) +\{"amount":500,"to":"alice"\}$/);
    expect(hostileLine.startsWith('!')).toBe(true);
    for (const raw of RAW) expect(run.stdout).not.toContain(raw);
    // At 80 columns the arguments are cut (show has them whole); what is shown is escaped.
    expect(hostileLine).toMatch(/\{"amount":500,"me[^ ]*…$/);
    const json = JSON.parse((await cli(['list', '--url', url, '--json'])).stdout) as { approvals: Array<{ requestId: string }> };
    expect(json.approvals.map((a) => a.requestId).sort()).toEqual([plain.requestId, hostile.requestId].sort());
  });

  it('show puts the warnings first, then the exact call; every hostile character is an escape', async () => {
    const url = await live();
    const { requestId } = await f.proposeTransfer(HOSTILE);
    const run = await cli(['show', requestId, '--url', url]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toContain('warning: this call contains text that does not read as what it is');
    expect(run.stdout).toContain('/arguments/to: bidi_control');
    expect(run.stdout).toContain('"to": "acct-\\u202E4321\\u202C"');
    expect(run.stdout).toContain('"payee": "\\u0430lice"');
    expect(run.stdout).toMatch(/tool {7}transfer/);
    for (const raw of RAW) expect(run.stdout).not.toContain(raw);
    expect(lines.findIndex((l) => l.startsWith('warning'))).toBeLessThan(lines.findIndex((l) => l.startsWith('tool')));
  });

  it('show of an unknown request, or one you may not decide, is exit 1 not_found; --status must be a real status (exit 2)', async () => {
    const url = await live();
    const { requestId } = await f.proposeTransfer();
    expect(await cli(['show', 'no-such-request', '--url', url])).toMatchObject({ code: 1, stderr: expect.stringContaining('not_found') });
    expect(await cli(['show', requestId, '--url', url], OSCAR_TOKEN)).toMatchObject({ code: 1, stderr: expect.stringContaining('not_found') });
    expect(await cli(['list', '--url', url, '--status', 'bogus'])).toMatchObject({ code: 2 });
    expect(await cli(['list', '--url', url, '--limit', '0'])).toMatchObject({ code: 2 });
  });
});

describe('countersign approvals approve and deny', () => {
  it('approve records the decision (exit 0); the agent runs exactly that call; a second approve is exit 1 already_decided', async () => {
    const url = await live();
    const { requestId, callId, argsDigest } = await f.proposeTransfer();
    const run = await cli(['approve', requestId, '--url', url, '--reason', 'checked']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    // It echoes the exact call it approved, from the service's record.
    expect(run.stdout).toBe(
      `approved: the request is approved, 1 of 1 approval\n  request    ${requestId}\n  tool       transfer\n  arguments  {"amount":500,"to":"alice"}\n  sha256     ${argsDigest}\n`,
    );
    const { token } = (await (await f.agent('GET', `/api/v1/requests/${requestId}/token`)).json()) as { token: string };
    expect(await (await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(callId, token))).json()).toMatchObject({ status: 'executed' });
    const again = await cli(['approve', requestId, '--url', url, '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: false, requestId, error: { code: 'already_decided' } });
  });

  it('the approve echo fits 80 columns: a short first line, the exact call under labels, long arguments folded whole, not cut', async () => {
    const url = await live();
    const memo = `invoice ${'0123456789'.repeat(14)} \u202E end`;
    const { requestId } = await f.proposeTransfer({ amount: 500, to: 'alice', memo }, 'call-long');
    const run = await cli(['approve', requestId, '--url', url]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.trimEnd().split('\n');
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    expect(lines[0]).toBe('approved: the request is approved, 1 of 1 approval');
    expect(lines[1]).toBe(`  request    ${requestId}`);
    // The folded lines put back together are the whole canonical call, escapes and all.
    const from = lines.findIndex((l) => l.startsWith('  arguments  '));
    const to = lines.findIndex((l) => l.startsWith('  sha256     '));
    expect(to - from).toBeGreaterThan(2);
    const joined = lines.slice(from, to).map((l) => l.slice(13)).join('');
    expect(joined).toBe(`{"amount":500,"memo":"invoice ${'0123456789'.repeat(14)} \\u202E end","to":"alice"}`);
    expect(run.stdout).not.toContain('\u202E');
  });

  it('deny closes the request (exit 0); the call never runs', async () => {
    const url = await live();
    const { requestId, callId } = await f.proposeTransfer();
    expect(JSON.parse((await cli(['deny', requestId, '--url', url, '--reason', 'no', '--json'])).stdout)).toEqual({ ok: true, requestId, status: 'denied' });
    expect(await (await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(callId))).json()).toMatchObject({ status: 'denied', reason: 'approval_denied' });
    expect(f.executions).toEqual([]);
  });

  it('approve --edit replaces the call: the original reads edited, only the edited arguments can run; a bad edit is exit 1 and changes nothing', async () => {
    const url = await live();
    const { requestId } = await f.proposeTransfer({ amount: 5000, to: 'mallory' });
    const bad = await cli(['approve', requestId, '--url', url, '--edit', '{"amount": 5, "amount": 500000, "to": "alice"}']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('not recorded: invalid_arguments');
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
    const run = await cli(['approve', requestId, '--url', url, '--edit', '{"to": "alice", "amount": 500}', '--json']);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { status: string; editedRequest: { requestId: string; status: string; callId: string } };
    expect(out).toMatchObject({ ok: true, requestId, status: 'edited', editedRequest: { status: 'approved' } });
    const shown = await cli(['show', requestId, '--url', url]);
    expect(shown.stdout).toContain(`edited     replaced by request ${out.editedRequest.requestId}`);
    const editedList = (await cli(['list', '--url', url, '--status', 'edited'])).stdout;
    expect(editedList).toContain(requestId.slice(0, 8));
    // Closed: the list says so, never a countdown; show gives the deadline without one either.
    expect(editedList).not.toMatch(/ (in|ago) \d/);
    expect(shown.stdout).toMatch(/deadline {3}\S+Z \(closed: edited\)/);
    expect(shown.stdout).not.toMatch(/expires/);
    const { token } = (await (await f.agent('GET', `/api/v1/requests/${out.editedRequest.requestId}/token`)).json()) as { token: string };
    expect(await (await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(out.editedRequest.callId, token))).json()).toMatchObject({ status: 'executed' });
    expect(f.executions).toEqual([{ tool: 'transfer', args: { amount: 500, to: 'alice' }, callId: out.editedRequest.callId }]);
  });

  it('attack: an ineligible approver is exit 1 not_found, an agent token exit 2; no token, a bad URL or no service: exit 2; nothing changes', async () => {
    const url = await live();
    const { requestId } = await f.proposeTransfer();
    expect(await cli(['approve', requestId, '--url', url], OSCAR_TOKEN)).toMatchObject({ code: 1, stderr: expect.stringContaining('not_found') });
    expect(await cli(['approve', requestId, '--url', url], AGENT_TOKEN)).toMatchObject({ code: 2, stderr: expect.stringContaining('HTTP 403') });
    expect(await cli(['list', '--url', url], AGENT_TOKEN)).toMatchObject({ code: 2 });
    expect(await cli(['deny', requestId, '--url', url], '')).toMatchObject({ code: 2, stderr: expect.stringContaining(APPROVER_TOKEN_ENV) });
    expect(await cli(['approve', requestId, '--url', 'ftp://x'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--url must be http') });
    expect(await cli(['list', '--url', 'http://127.0.0.1:1'])).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot reach http://127.0.0.1:1') });
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
  });
});

describe('countersign approvals: the service from COUNTERSIGN_URL, ids by prefix', () => {
  const withEnv = (args: string[], env: Record<string, string | undefined>) =>
    runCaptured(['approvals', ...args], { cwd: process.cwd(), env: { [APPROVER_TOKEN_ENV]: FIONA_TOKEN, ...env } });

  it('COUNTERSIGN_URL stands in for --url; neither is a usage error naming both', async () => {
    const url = await live();
    const { requestId } = await f.proposeTransfer();
    const listed = await withEnv(['list'], { COUNTERSIGN_URL: url });
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toContain(requestId.slice(0, 8));
    // --url wins over the variable.
    expect(await withEnv(['list', '--url', url], { COUNTERSIGN_URL: 'http://127.0.0.1:1' })).toMatchObject({ code: 0 });
    const missing = await withEnv(['list'], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('pass --url, set COUNTERSIGN_URL');
  });

  it('approve and show take the start of an id; a prefix of two requests is refused and decides nothing', async () => {
    const url = await live();
    const { requestId } = await f.proposeTransfer({ amount: 700, to: 'alice' }, 'call-a');
    const other = await f.proposeTransfer({ amount: 800, to: 'bob' }, 'call-b');
    const common = commonPrefix(requestId, other.requestId);
    if (common.length >= 4) {
      const ambiguous = await withEnv(['approve', common], { COUNTERSIGN_URL: url });
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stderr).toContain('type more of the id');
    }
    // Whatever the ids share, a too-short prefix never picks one.
    expect((await withEnv(['approve', requestId.slice(0, 3)], { COUNTERSIGN_URL: url })).code).toBe(1);
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
    expect((await requestView(f.gate, other.requestId))?.status).toBe('pending');

    const prefix = requestId.slice(0, Math.max(8, common.length + 1));
    expect((await withEnv(['show', prefix], { COUNTERSIGN_URL: url })).stdout).toContain(`request    ${requestId}`);
    const approved = await withEnv(['approve', prefix], { COUNTERSIGN_URL: url });
    expect(approved).toMatchObject({ code: 0 });
    expect(approved.stdout).toContain(`  request    ${requestId}\n  tool       transfer\n`);
    expect(approved.stdout).toContain('arguments  {"amount":700,"to":"alice"}');
    expect((await requestView(f.gate, requestId))?.status).toBe('approved');
    expect((await requestView(f.gate, other.requestId))?.status).toBe('pending');
  });
});

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}
