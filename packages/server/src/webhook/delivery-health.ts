import type { Logger } from 'pino';
import type { DeliveryReport } from './webhook-sender.ts';

export interface DeliveryCounter {
  /** One delivery finished: delivered, or given up after its last attempt. */
  countWebhookDelivery(format: string, outcome: 'delivered' | 'failed'): void;
}

/**
 * Watches one webhook target's delivery reports so an operator learns when notifications
 * stop and when they come back: every outcome is counted; the first failure after a
 * success (or at start) logs one warning, the first success after failures logs the
 * recovery with how many events were lost. Failures in between are counted, not logged,
 * so a receiver that is down for an hour writes two lines, not thousands.
 * The log names the receiver's origin only: a Slack incoming-webhook path is a secret.
 */
export function deliveryHealth(target: { url: string; format: string }, logger: Logger, counter: DeliveryCounter | undefined): (report: DeliveryReport) => void {
  const receiver = originOf(target.url);
  let failing = false;
  let lost = 0;
  return (report) => {
    counter?.countWebhookDelivery(target.format, report.delivered ? 'delivered' : 'failed');
    if (!report.delivered) {
      lost++;
      if (failing) return;
      failing = true;
      logger.warn(
        { event: 'webhook_failing', receiver, format: target.format, eventId: report.eventId, attempts: report.attempts, lastStatus: report.lastStatus ?? null },
        `webhook deliveries to ${receiver} are failing: approvers may not be notified until it recovers`,
      );
      return;
    }
    if (!failing) return;
    logger.info({ event: 'webhook_recovered', receiver, format: target.format, lost }, `webhook deliveries to ${receiver} recovered; ${lost} event${lost === 1 ? ' was' : 's were'} not delivered`);
    failing = false;
    lost = 0;
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid-url';
  }
}
