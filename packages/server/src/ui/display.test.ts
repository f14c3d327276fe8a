import { afterEach, describe, expect, it } from 'vitest';
import { browserSession } from '../testing/browser-session.ts';
import { FIONA_PASSWORD, makeServerFixture, ORIGIN, type ServerFixture } from '../testing/server-fixture.ts';
import type { ApprovalView } from '../views/request-views.ts';
import { HOSTILE_CALLS } from '../testing/hostile-calls.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});


async function propose(args: unknown, principal = 'user:42', callId = 'call-1'): Promise<string> {
  const res = await f.agent('POST', '/api/v1/proposals', { ...f.proposalBody([{ id: callId, name: 'transfer', arguments: args }]), principal });
  const json = (await res.json()) as { outcomes: Array<{ status: string; requestId?: string }> };
  expect(json.outcomes[0]?.status).toBe('approval_required');
  return json.outcomes[0]!.requestId!;
}

async function pagesFor(requestId: string) {
  const browser = browserSession(f.app, ORIGIN);
  await browser.login('fiona', FIONA_PASSWORD);
  const detail = await (await browser.request('GET', `/requests/${requestId}`)).text();
  const list = await (await browser.request('GET', '/')).text();
  return { detail, list };
}

describe('the approval pages show what runs, visibly', () => {
  it.each(HOSTILE_CALLS)('$name: escaped in its own style, never raw, and flagged with its pointer', async (attack) => {
    f = makeServerFixture();
    const requestId = await propose(attack.args, 'principal' in attack ? attack.principal : undefined);
    const { detail, list } = await pagesFor(requestId);
    // The raw character appears nowhere on either page: every place a person reads the call is covered.
    expect(detail).not.toContain(attack.raw);
    expect(list).not.toContain(attack.raw);
    expect(detail).toMatch(new RegExp(`<span class="esc" title="U\\+[0-9A-F]{4}[^"]*">\\${attack.escape}</span>`));
    const warnings = /<section class="flag" role="alert" id="display-warnings"[\s\S]*?<\/section>/.exec(detail)?.[0] ?? '';
    expect(warnings).toContain(`data-kind="${attack.kind}"`);
    const shownPointer = attack.pointer.replace(attack.raw, `<span class="esc" title="`);
    expect(warnings).toContain(shownPointer.split('<span')[0]);
    expect(list).toContain('class="badge flagged"');
  });

  it('the audit page shows the recorded tool, actor and reason with the same escapes', async () => {
    f = makeServerFixture();
    const requestId = await propose({ amount: 500, to: 'alice' }, 'user:\u0430dmin');
    await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'deny', reason: 'looks like \u202E\u0430dmin\u200B' });
    const browser = browserSession(f.app, ORIGIN);
    await browser.login('fiona', FIONA_PASSWORD);
    const audit = await (await browser.request('GET', '/audit')).text();
    for (const raw of ['\u202E', '\u0430', '\u200B']) expect(audit).not.toContain(raw);
    expect(audit).toContain('<span class="esc" title="U+202E RIGHT-TO-LEFT OVERRIDE">\\u202E</span>');
  });

  it('a plain ASCII call carries no warning, no escape and no flag', async () => {
    f = makeServerFixture();
    const requestId = await propose({ amount: 500, to: 'alice', memo: 'rent, June\nline two' });
    const { detail, list } = await pagesFor(requestId);
    for (const page of [detail, list]) {
      expect(page).not.toContain('class="esc"');
      expect(page).not.toContain('class="flag"');
      expect(page).not.toContain('badge flagged');
    }
    expect(detail).toContain('&quot;memo&quot;: &quot;rent, June\\nline two&quot;');
  });

  it('flags arguments the pinned input schema does not allow, by pointer', async () => {
    f = makeServerFixture();
    const requestId = await propose({ amount: '500', to: 42 });
    const { detail, list } = await pagesFor(requestId);
    const box = /<section class="flag" role="alert" id="schema-problems"[\s\S]*?<\/section>/.exec(detail)?.[0] ?? '';
    expect(box).toContain('<code class="pointer">/arguments/amount</code>');
    expect(box).toContain('<code class="pointer">/arguments/to</code>');
    expect(detail).not.toContain('id="display-warnings"');
    expect(list).toContain('arguments outside the tool schema');
  });

  it('the edit box holds escapes that parse to the same arguments', async () => {
    f = makeServerFixture();
    const requestId = await propose({ amount: 500, to: 'acct-\u202E4321\u202C' });
    const { detail } = await pagesFor(requestId);
    const box = /<textarea[^>]*>\n([\s\S]*?)<\/textarea>/.exec(detail)?.[1] ?? '';
    const text = box.replaceAll('&quot;', '"').replaceAll('&amp;', '&');
    expect(text).toContain('"to": "acct-\\u202E4321\\u202C"');
    expect(JSON.parse(text)).toEqual({ amount: 500, to: 'acct-\u202E4321\u202C' });
  });
});

describe('the API views carry the findings beside the byte-exact values', () => {
  it('approver and agent views list findings and schema problems; raw values are untouched', async () => {
    f = makeServerFixture();
    const requestId = await propose({ amount: 500, to: 'acct-\u202E4321\u202C' }, 'user:\u0430dmin');
    for (const res of [await f.fiona('GET', `/api/v1/approvals/${requestId}`), await f.agent('GET', `/api/v1/requests/${requestId}`)]) {
      const view = (await res.json()) as ApprovalView;
      expect(view.call.canonicalArguments).toBe('{"amount":500,"to":"acct-\u202E4321\u202C"}');
      expect(view.call.principal).toBe('user:\u0430dmin');
      expect(view.display.findings.map((x) => [x.pointer, x.kind])).toEqual([
        ['/principal', 'confusable'],
        ['/arguments/to', 'bidi_control'],
      ]);
      expect(view.display.inputSchema).toEqual({ checked: true, problems: [] });
    }
  });

  it('a plain call has an empty display report', async () => {
    f = makeServerFixture();
    const requestId = await propose({ amount: 500, to: 'alice' });
    const view = (await (await f.fiona('GET', `/api/v1/approvals/${requestId}`)).json()) as ApprovalView;
    expect(view.display).toEqual({ findings: [], truncated: false, inputSchema: { checked: true, problems: [] } });
  });
});
