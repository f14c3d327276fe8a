import type { WebhookPayload } from './webhook-payload.ts';

/** Slack's mrkdwn needs &, < and > escaped; everything else in our text is already display-safe. */
function mrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The same event as a Slack incoming-webhook message (Block Kit): a fallback `text`, a
 * section with the summary, the digest, and a button linking to the approval page. No
 * decision happens in Slack: the button opens the page, where the approver signs in.
 */
export function slackMessage(payload: WebhookPayload): Record<string, unknown> {
  // The summary names the event already ("transfer for user:42: approval requested; …"): no title before it.
  const summary = mrkdwn(payload.summary.text);
  const open = payload.request.status === 'pending' || payload.request.status === 'approved';
  const lines = [
    summary,
    [
      payload.request.ruleId === undefined ? undefined : `Rule \`${mrkdwn(payload.request.ruleId)}\``,
      // Slack shows the time in each reader's own zone; the ISO text is the fallback.
      open ? `expires <!date^${Math.floor(payload.request.expiresAt / 1000)}^{date_short_pretty} {time}|${new Date(payload.request.expiresAt).toISOString()}>` : undefined,
    ]
      .filter((part) => part !== undefined)
      .join(' · '),
    ...(payload.summary.arguments === undefined ? [] : [`Arguments: ${mrkdwn(payload.summary.arguments)}`]),
    `Arguments digest \`${payload.request.argsDigest.slice(0, 16)}…\`${payload.display.argumentsFlagged ? ' — arguments contain hidden or look-alike characters: check the page' : ''}`,
  ];
  const blocks: Array<Record<string, unknown>> = [{ type: 'section', text: { type: 'mrkdwn', text: lines.filter((line) => line !== '').join('\n') } }];
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
  return { text: summary, blocks };
}
