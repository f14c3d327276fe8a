import { describe, expect, it } from 'vitest';
import { verdictOf } from '../audit/step-facts.ts';
import { MemoryDefinitionStore } from '../catalog/memory-definition-store.ts';
import { loadPolicy } from '../policy/load.ts';
import { makeGateFixture } from '../testing/gate-fixture.ts';

// Tool annotations are claims of the tool's author: they may tighten a verdict, never loosen it.

const AGENT = { id: 'gateway' };
const APPROVER = { id: 'ann', roles: ['approver'] };
const WRITE = {
  name: 'fs__write_file',
  description: 'Write a file',
  inputSchema: { type: 'object' },
  annotations: { destructiveHint: true, readOnlyHint: false },
};
const READ = { name: 'fs__read_file', description: 'Read a file', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };

function gatewayGate(policyYaml: string) {
  const f = makeGateFixture({ definitions: new MemoryDefinitionStore(), tools: {}, trustOnFirstUse: true, policy: loadPolicy(policyYaml, 'yaml') });
  const call = (toolName: string, callId: string) =>
    f.gate.propose({ runId: 'run-a', sessionId: 's-1', principal: 'user:42', callId, toolName, arguments: { path: '/tmp/x' } }, AGENT);
  return { ...f, call };
}

const GLOB_ALLOW = `
version: 1
rules:
  - id: fs-all
    tool: "fs__*"
    verdict: allow
`;

describe('gate: annotations only tighten (attacks)', () => {
  it('a destructive tool allowed only by a glob needs approval at propose', async () => {
    const f = gatewayGate(GLOB_ALLOW);
    expect((await f.gate.registerTools([WRITE, READ], AGENT)).ok).toBe(true);
    const proposed = await f.call('fs__write_file', 'c1');
    expect(proposed).toMatchObject({ status: 'approval_required' });
    // The read-only tool under the same rule keeps its allow.
    expect(await f.call('fs__read_file', 'c2')).toMatchObject({ status: 'allowed' });
    const verdicts = (await f.gate.auditLog.read()).filter((r) => r.toolName === 'fs__write_file').map(verdictOf).filter((v) => v !== undefined);
    expect(verdicts[0]).toMatchObject({ verdict: 'approve', ruleId: 'fs-all', tightenedBy: 'destructiveHint' });
  });

  it('authorize without the approval propose asked for is refused (policy re-decided at authorize is tightened too)', async () => {
    const f = gatewayGate(GLOB_ALLOW);
    await f.gate.registerTools([WRITE], AGENT);
    const proposed = await f.call('fs__write_file', 'c1');
    if (proposed.status !== 'approval_required') throw new Error(`expected approval_required, got ${proposed.status}`);
    const unapproved = await f.gate.authorize({ proposalId: proposed.proposalId }, AGENT);
    expect(unapproved.status).not.toBe('authorized');
    // Approved by a default approver, it runs once.
    expect((await f.gate.approvals.decide(APPROVER, { requestId: proposed.requestId, decision: 'approve' })).ok).toBe(true);
    const token = await f.gate.approvals.token(proposed.requestId, AGENT);
    if (!token.ok) throw new Error(token.message);
    expect(await f.gate.authorize({ proposalId: proposed.proposalId, token: token.token }, AGENT)).toMatchObject({ status: 'authorized' });
  });

  it('a catch-all `*` allow does not wave destructive tools through either', async () => {
    const f = gatewayGate('version: 1\nrules:\n  - { id: everything, tool: "*", verdict: allow }\n');
    await f.gate.registerTools([WRITE], AGENT);
    expect(await f.call('fs__write_file', 'c1')).toMatchObject({ status: 'approval_required' });
  });

  it('a rule that names the tool explicitly keeps its allow (also inside a `tools` list with globs)', async () => {
    for (const rule of ['tool: fs__write_file', 'tools: ["fs__*", fs__write_file]']) {
      const f = gatewayGate(`version: 1\nrules:\n  - id: named\n    ${rule}\n    verdict: allow\n`);
      await f.gate.registerTools([WRITE], AGENT);
      expect(await f.call('fs__write_file', 'c1')).toMatchObject({ status: 'allowed' });
    }
  });

  it('readOnlyHint never loosens: an approve rule still needs approval, a deny still denies', async () => {
    const lying = { ...WRITE, annotations: { readOnlyHint: true, destructiveHint: false } };
    const f = gatewayGate(`
version: 1
rules:
  - { id: ask, tool: fs__write_file, verdict: approve }
  - { id: no, tool: "fs__del*", verdict: deny }
`);
    await f.gate.registerTools([lying, { ...lying, name: 'fs__delete' }], AGENT);
    expect(await f.call('fs__write_file', 'c1')).toMatchObject({ status: 'approval_required' });
    expect(await f.call('fs__delete', 'c2')).toMatchObject({ status: 'denied', reason: 'policy_deny' });
  });

  it('destructiveHint together with readOnlyHint: true is not treated as destructive', async () => {
    const f = gatewayGate(GLOB_ALLOW);
    await f.gate.registerTools([{ ...WRITE, annotations: { destructiveHint: true, readOnlyHint: true } }], AGENT);
    expect(await f.call('fs__write_file', 'c1')).toMatchObject({ status: 'allowed' });
  });

  it('only the pinned definition counts: a re-registered definition that drops the hint is refused, not allowed', async () => {
    const f = gatewayGate(GLOB_ALLOW);
    await f.gate.registerTools([WRITE], AGENT);
    expect(await f.call('fs__write_file', 'c1')).toMatchObject({ status: 'approval_required' });
    // The upstream now claims the tool is harmless: a new definition, which is not trusted until reviewed.
    await f.gate.registerTools([{ ...WRITE, annotations: { readOnlyHint: true } }], AGENT);
    expect(await f.call('fs__write_file', 'c2')).toMatchObject({ status: 'rejected', reason: 'definition_mismatch' });
  });
});
