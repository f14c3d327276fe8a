import { expect, it } from 'vitest';
import { slackMessage } from './slack-payload.ts';
import type { WebhookPayload } from './webhook-payload.ts';

const payload = (summary: string): WebhookPayload => ({
  id: 'e-1',
  type: 'request.created',
  request: {
    requestId: 'r-1',
    status: 'pending',
    toolName: 't',
    principal: 'p',
    argsDigest: 'a'.repeat(64),
    definitionDigest: null,
    runId: 'run',
    sessionId: 's',
    callId: 'c',
    createdAt: 0,
    expiresAt: 1,
    approvals: 0,
    requiredApprovals: 1,
    decisions: [],
    url: 'https://countersign.example/requests/r-1',
  },
  summary: { text: summary },
  display: { findings: [], truncated: false, argumentsFlagged: false },
});

it('an untrusted tool name or reason cannot become a Slack link, in the blocks or in the notification text', () => {
  const message = slackMessage(payload('transfer <https://evil.example|Open the approval page> & more'));
  const text = JSON.stringify(message);
  expect(text).not.toContain('<https://evil.example');
  expect(message.text).toBe('transfer &lt;https://evil.example|Open the approval page&gt; &amp; more');
});
