import type { AuditRecord } from '@countersign/core/audit';
import { MemoryAuditLog } from '@countersign/core/audit';
import { MemoryPasskeyStore } from '@countersign/core/passkey';
import { loadPolicy } from '@countersign/core/policy';
import { PASSKEY_POLICY_YAML as POLICY } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { AUDITOR_ROLE } from '../audit/visible-records.ts';
import { makeServerFixture, PROXY_SECRET } from '../testing/server-fixture.ts';
import { softAuthenticator } from '../testing/soft-authenticator.ts';

const ORIGIN = 'http://approvals.localhost';

/** fiona registers a passkey and approves a transfer with it; oscar (ops) may decide no transfer. */
async function setup() {
  const audit = new MemoryAuditLog();
  const store = new MemoryPasskeyStore({ audit });
  const f = makeServerFixture({ publicOrigin: ORIGIN, passkeys: { store } }, { policy: loadPolicy(POLICY, 'yaml'), audit });
  const fiona = softAuthenticator('fiona', { rpId: 'approvals.localhost', origin: ORIGIN });
  const options = (await (await f.fiona('POST', '/api/v1/passkeys/registration-options', {})).json()) as { challenge: string };
  expect((await f.fiona('POST', '/api/v1/passkeys', { label: 'laptop', response: fiona.registration(options.challenge) })).status).toBe(201);
  const { requestId } = await f.proposeTransfer();
  const challenge = (await (await f.fiona('POST', '/api/v1/passkey-challenge', { requestId, decision: 'approve' })).json()) as { challenge: string };
  const passkeyAssertion = fiona.assertion(Buffer.from(challenge.challenge, 'base64url'));
  expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', passkeyAssertion })).status).toBe(200);
  const read = async (res: Response) => ((await res.json()) as { records: AuditRecord[] }).records;
  return { f, requestId, read };
}

describe('GET /api/v1/audit: approvers read what they may decide; an auditor reads everything', () => {
  it('an approver eligible for no transfer sees neither its call, decision and assertion, nor fiona’s passkey ceremony', async () => {
    const { f, requestId, read } = await setup();
    const oscarPage = (await (await f.oscar('GET', '/api/v1/audit?limit=500')).json()) as { records: AuditRecord[]; hidden: number };
    const oscar = oscarPage.records;
    // Counted, not shown: the records oscar may not read are exactly those missing from his page.
    expect(oscarPage.hidden).toBe((await f.audit.read()).length - oscar.length);
    expect(oscarPage.hidden).toBeGreaterThan(0);
    expect(oscar.filter((r) => r.type === 'passkey_registered' || r.requestId === requestId || r.callId === 'call-1')).toEqual([]);
    expect(JSON.stringify(oscar)).not.toContain('authenticatorData');
    // fiona, who may decide it, reads all of it, her ceremony included.
    const fiona = await read(await f.fiona('GET', '/api/v1/audit?limit=500'));
    expect(fiona.map((r) => r.type)).toEqual(expect.arrayContaining(['passkey_registered', 'proposal', 'decision']));
    // An auditor (here through the trusted proxy's roles header) reads every record of the chain.
    const all = await f.audit.read();
    const auditor = await read(
      await f.send('GET', '/api/v1/audit?limit=500', undefined, undefined, { 'X-Auth-User': 'ada', 'X-Auth-Roles': AUDITOR_ROLE, 'X-Proxy-Secret': PROXY_SECRET }),
    );
    expect(auditor.map((r) => r.seq)).toEqual(all.map((r) => r.seq));
  });

  it('paging still walks the whole chain when records are hidden', async () => {
    const { f } = await setup();
    const first = (await (await f.oscar('GET', '/api/v1/audit?limit=2')).json()) as { records: AuditRecord[]; nextAfterSeq: number | null };
    expect(first.nextAfterSeq).toBe(2);
  });
});
