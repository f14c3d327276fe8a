import { Gate } from '@countersign/core';
import { MemoryAuditLog } from '@countersign/core/audit';
import { MemoryLedger } from '@countersign/core/ledger';
import { loadPolicy } from '@countersign/core/policy';
import { ed25519KeyFromPem, hmacKey, Keyring } from '@countersign/core/token';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { memoryTaskBackend, TaskSummaryStore } from './task-summary-store.ts';
import { TaskKeyError } from './sealed-task.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

const TASK = "Summarize last week's failing tests in auth-service for Jane Doe";
const keyring = new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]);

function store(overrides: Partial<ConstructorParameters<typeof TaskSummaryStore>[0]> = {}) {
  const backend = memoryTaskBackend();
  let now = 1_000_000;
  const s = new TaskSummaryStore({ keyring, backend, retentionMs: 60_000, clock: () => now, ...overrides });
  return { s, backend, advance: (ms: number) => (now += ms) };
}

describe('task summaries at rest', () => {
  it('stores only ciphertext and the digest; reads back within the run', async () => {
    const { s, backend } = store();
    const saved = await s.save('run-1', TASK);
    const raw = JSON.stringify([...backend.records.values()]);
    expect(raw).not.toContain('auth-service');
    expect(raw).not.toContain(Buffer.from(TASK).toString('base64url').slice(0, 20));
    expect(await s.read(saved.taskId, 'run-1')).toBe(TASK);
    // Another run cannot read it by id.
    expect(await s.read(saved.taskId, 'run-2')).toBeUndefined();
  });

  it('an edited, moved or re-keyed record does not decrypt (AES-GCM with id, run and key id authenticated)', async () => {
    const { s, backend } = store();
    const a = await s.save('run-1', TASK);
    const b = await s.save('run-1', 'another task');
    const rec = backend.records.get(a.taskId)!;
    const flipped = Buffer.from(rec.ciphertext, 'base64url');
    flipped[0]! ^= 1;
    await backend.put({ ...rec, ciphertext: flipped.toString('base64url') });
    expect(await s.read(a.taskId, 'run-1')).toBeUndefined();
    // b's ciphertext placed under a's id (digest swapped too): the authenticated id differs.
    const recB = backend.records.get(b.taskId)!;
    await backend.put({ ...recB, taskId: a.taskId });
    expect(await s.read(a.taskId, 'run-1')).toBeUndefined();
    // The same record claimed for another run: the per-run key and the AAD both differ.
    const c = await s.save('run-1', TASK);
    await backend.put({ ...backend.records.get(c.taskId)!, runId: 'run-9' });
    expect(await s.read(c.taskId, 'run-9')).toBeUndefined();
    // Another master secret cannot read it.
    const other = new TaskSummaryStore({ keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 8))]), backend });
    const d = await s.save('run-1', TASK);
    expect(await other.read(d.taskId, 'run-1')).toBeUndefined();
  });

  it('retention: expired summaries are unreadable and deleted, on read and by sweep', async () => {
    const { s, backend, advance } = store();
    const a = await s.save('run-1', TASK);
    await s.save('run-1', 'second');
    advance(60_001);
    expect(await s.read(a.taskId, 'run-1')).toBeUndefined();
    expect(backend.records.has(a.taskId)).toBe(false);
    expect(await s.sweep()).toBe(1);
    expect(backend.records.size).toBe(0);
    const b = await s.save('run-1', TASK);
    expect(await s.delete(b.taskId)).toBe(true);
    expect(await s.read(b.taskId, 'run-1')).toBeUndefined();
  });

  it('refuses bad tasks and a keyring with no master secret', async () => {
    const { s } = store();
    for (const bad of ['', ' ', 'x'.repeat(4001), 'a\uD800']) await expect(s.save('run-1', bad)).rejects.toThrow(TypeError);
    const { privateKey } = generateKeyPairSync('ed25519');
    const edOnly = new Keyring([ed25519KeyFromPem('e1', privateKey.export({ type: 'pkcs8', format: 'pem' }).toString())]);
    await expect(new TaskSummaryStore({ keyring: edOnly }).save('run-1', TASK)).rejects.toThrow(TaskKeyError);
  });

  it('through the gate: a call names its task by id; the audit chain has the digest, never the text', async () => {
    const { s } = store();
    const audit = new MemoryAuditLog();
    const asked: string[] = [];
    const gate = new Gate({
      definitions: new MemoryDefinitionStore(),
      ledger: new MemoryLedger({ audit }),
      audit,
      keyring,
      policy: loadPolicy('version: 1\nrules:\n  - { id: all, tool: "*", verdict: allow }\n', 'yaml'),
      tools: { list_runs: { execute: () => [] } },
      intent: {
        resolveTask: s.resolver(),
        matcher: { id: 'm', match: async ({ task }) => {
          asked.push(task);
          return { decision: 'match', score: 1, matcher: 'm' };
        },
        },
      },
    });
    const { taskId, taskDigest } = await s.save('run-1', TASK);
    const call = { runId: 'run-1', sessionId: 's', principal: 'p', callId: 'c1', toolName: 'list_runs', arguments: {}, taskId };
    expect(await gate.propose(call)).toMatchObject({ status: 'allowed' });
    expect(asked).toEqual([TASK]);
    // The same id from another run resolves to nothing: fail closed.
    expect(await gate.propose({ ...call, runId: 'run-2' })).toMatchObject({ status: 'denied', reason: 'intent_mismatch' });
    const records = JSON.stringify(await audit.read({ limit: 1000 }));
    expect(records).toContain(taskDigest);
    expect(records).not.toContain('auth-service');
  });
});
