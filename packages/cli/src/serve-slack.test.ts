import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { apiClient } from './serve/testing/api-client.ts';
import { startWebhookReceiver } from '@countersign/server/test-kit';
import { serveInProcess } from './testing/serve-in-process.ts';

const cwd = mkdtempSync(join(tmpdir(), 'countersign-slack-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

it('serve --slack-webhook-url posts a Slack message whose button opens the request on the listen address', async () => {
  const receiver = await startWebhookReceiver([]);
  const agentToken = 'agent-token-for-slack-test';
  const server = await serveInProcess(['--slack-webhook-url', receiver.url, '--json'], { cwd, env: { COUNTERSIGN_AGENT_TOKEN: agentToken } });
  try {
    expect(server.stdout()).toContain('--slack-webhook-url without --public-url');
    const outcome = (
      await apiClient(server.url, agentToken).post('/api/v1/proposals', {
        runId: 'r',
        sessionId: 's',
        principal: 'user:slack',
        toolCalls: [{ id: 'c', name: 'transfer', arguments: { amount: 5000, to: 'x' } }],
      })
    ).body.outcomes[0];
    await receiver.waitFor(1, 10_000);
    const message = JSON.parse(receiver.received[0]!.body);
    expect(message.text).toBe('transfer for user:slack: approval requested; 0 of 1 approval');
    expect(message.blocks[1].elements[0].url).toBe(`${server.url}/requests/${outcome.requestId}`);
  } finally {
    await server.stop();
    await receiver.close();
  }
});
