import { z } from 'zod';
import { MAX_REFUSAL_DETAIL } from '../gate/relay/refusal-report.ts';
import { Id } from './requests.ts';

/** POST /runs/:runId/refusals: a refusal the integration made itself (`GatePort.reportRefusal`); the gate checks the text further. */
export const RefusalReportBody = z
  .object({
    sessionId: Id.optional(),
    principal: Id.optional(),
    callId: Id.optional(),
    reason: z.enum(['unknown_shape', 'call_refused']),
    detail: z.string().min(1).max(MAX_REFUSAL_DETAIL),
  })
  .strict();

/** Its answer when recorded; refusals are HTTP errors (404 another agent's run, 400, 503). */
export const RefusalReportRecorded = z.object({ ok: z.literal(true) });

/** POST /runs/:runId/provider-outputs (`GatePort.recordProviderOutput`): the digest of a hosted tool's output, never the output. */
export const ProviderOutputBody = z
  .object({
    callId: Id,
    outputDigest: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

/** Its answer when recorded; refusals are HTTP errors (404 no such provider call, 409 another output first, 400, 503). */
export const ProviderOutputRecorded = z.object({ ok: z.literal(true), duplicate: z.boolean() });
