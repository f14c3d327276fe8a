import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { Gate, hmacKey, Keyring, loadPolicy, MemoryAuditLog, MemoryLedger } from '@countersign/core';
import { manualClock } from '@countersign/core/testing';
import { type MintInput, mintApprovalToken } from '@countersign/core/token';
import { ATTACK_KIT_POLICY_YAML, attackKitTools, type GateAttackAdapter, KIT_AGENTS, KIT_APPROVER, KIT_CHANGED_DEFINITION, type KitAgent } from '@countersign/core/testing';
import { type AuthConfig, createApp } from '@countersign/server';
import { createAdaptorServer } from '@hono/node-server';
import { closeServer, listen } from '../../server/src/serve/listen.ts';
import { type CountersignClient, createClient } from './create-client.ts';
import { MemoryDefinitionStore } from '@countersign/core/catalog';

/**
 * The attack kit's adapter for `@countersign/client` over a real HTTP server on
 * loopback: the kit's agents are bearer-token agents of a `@countersign/server` app, the
 * approver decides through POST /api/v1/decisions. A definition change swaps in a gate
 * over the same stores (a restart with a changed tool), behind the same listening socket.
 */
export async function httpAttackAdapter(): Promise<GateAttackAdapter> {
  const clock = manualClock(Date.UTC(2026, 5, 1, 12));
  const ledger = new MemoryLedger();
  const audit = new MemoryAuditLog();
  const keyring = new Keyring([hmacKey('kit-k1', Buffer.alloc(32, 0x6b))]);
  const policy = loadPolicy(ATTACK_KIT_POLICY_YAML, 'yaml');
  const token = (who: string) => `${who}-${randomBytes(16).toString('hex')}`;
  const approverToken = token('approver');
  const auth: AuthConfig = {
    agents: [
      { name: KIT_AGENTS.a.id, token: token('agent-a') },
      { name: KIT_AGENTS.b.id, token: token('agent-b') },
    ],
    approvers: [{ id: KIT_APPROVER.id, roles: [...(KIT_APPROVER.roles ?? [])], token: approverToken }],
  };
  const serve = (pinned?: typeof KIT_CHANGED_DEFINITION) => {
    const tools = attackKitTools(pinned === undefined ? {} : { pinned });
    const gate = new Gate({ definitions: new MemoryDefinitionStore(), ledger, audit, policy, keyring, tools, clock, newId: () => `kit-${randomUUID()}` });
    return createApp({ gate, auth, tuning: { pollIntervalMs: 20 } });
  };
  let current = serve();
  const server = createAdaptorServer({ fetch: (request: Request) => current.app.fetch(request) }) as Server;
  const url = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  const clients: Record<KitAgent, CountersignClient> = {
    a: createClient({ baseUrl: url, token: auth.agents[0]!.token, retryDelayMs: 5 }),
    b: createClient({ baseUrl: url, token: auth.agents[1]!.token, retryDelayMs: 5 }),
  };

  const decide = async (requestId: string, decision: 'approve' | 'deny' | 'revoke') => {
    const res = await fetch(`${url}/api/v1/decisions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${approverToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ requestId, decision }),
    });
    if (!res.ok) throw new Error(`attack kit: ${decision} refused: ${res.status} ${await res.text()}`);
  };

  return {
    port: (agent) => clients[agent],
    decide,
    revoke: (requestId) => decide(requestId, 'revoke'),
    signClaims: (claims) => mintApprovalToken(claims as unknown as MintInput, keyring),
    advanceClock: (ms) => clock.advance(ms),
    auditRecords: () => audit.read({ limit: 1_000_000 }),
    async changeToolDefinition(toolName) {
      if (toolName !== KIT_CHANGED_DEFINITION.name) throw new Error(`attack kit: cannot change ${toolName}`);
      const previous = current;
      current = serve(KIT_CHANGED_DEFINITION);
      await previous.close();
    },
    async close() {
      await current.close();
      await closeServer(server, 100);
    },
  };
}
