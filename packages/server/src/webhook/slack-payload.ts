import type { WebhookPayload } from './webhook-payload.ts';

/** Slack's mrkdwn needs &, < and > escaped; everything else in our text is already display-safe. */
function mrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const TITLES: Record<WebhookPayload['type'], string> = {
  'request.created': 'Approval requested',
  'request.decided': 'Request decided',
  'request.executed': 'Approved call running',
  'request.completed': 'Approved call finished',
  'request.expired': 'Request expired',
};

/**
 * The same event as a Slack incoming-webhook message (Block Kit): a fallback `text`, a
 * section with the summary, the digest, and a button linking to the approval page. No
 * decision happens in Slack: the button opens the page, where the approver signs in.
 */
export function slackMessage(payload: WebhookPayload): Record<string, unknown> {
  const title = TITLES[payload.type];
  const lines = [
    `*${title}*: ${mrkdwn(payload.summary.text)}`,
    ...(payload.summary.arguments === undefined ? [] : [`Arguments: ${mrkdwn(payload.summary.arguments)}`]),
    `Arguments digest \`${payload.request.argsDigest.slice(0, 16)}…\`${payload.display.argumentsFlagged ? ' — arguments contain hidden or look-alike characters: check the page' : ''}`,
  ];
  const blocks: Array<Record<string, unknown>> = [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } }];
  if (payload.request.url !== null) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: payload.type === 'request.created' ? 'Review and decide' : 'Open request' },
          url: payload.request.url,
          action_id: 'countersign-open',
          ...(payload.type === 'request.created' ? { style: 'primary' } : {}),
        },
      ],
    });
  }
  return { text: `${title}: ${mrkdwn(payload.summary.text)}`, blocks };
}
