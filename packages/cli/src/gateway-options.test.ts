import { parseGatewayConfig } from '@countersign/mcp';
import { describe, expect, it } from 'vitest';
import { gatewayOptionsOf } from './gateway-options.ts';

describe('gatewayOptionsOf: one mapping of the config file to createGateway for `mcp` and `serve --mcp`', () => {
  it('carries every gateway setting the file sets, strict mode and the principal included, and none of the service settings', () => {
    const file = {
      upstreams: [{ name: 'memory', command: 'node', args: ['server.js'] }],
      policy: 'policy.yaml',
      principal: 'user:42',
      agent: 'gw',
      calls: 'recorded',
      runId: 'run-7',
      sessionId: 'session-7',
      namespaced: true,
      approvalWaitMs: 30_000,
      elicitationWaitMs: 90_000,
      progressIntervalMs: 5_000,
      approvalUrl: 'https://approvals.example',
      relistBeforeCall: true,
      maxMessageBytes: 65_536,
    };
    const parsed = parseGatewayConfig(file, '/etc/countersign');
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    expect(gatewayOptionsOf(parsed.config)).toEqual({
      upstreams: parsed.config.upstreams,
      principal: 'user:42',
      calls: 'recorded',
      runId: 'run-7',
      sessionId: 'session-7',
      namespaced: true,
      approvalWaitMs: 30_000,
      elicitationWaitMs: 90_000,
      progressIntervalMs: 5_000,
      approvalUrl: 'https://approvals.example',
      relistBeforeCall: true,
      maxMessageBytes: 65_536,
    });
  });
});
