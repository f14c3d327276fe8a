import type { ProxyError } from './refusal.ts';
import type { RunContext } from './run-context.ts';

/** The codes of a request part refused for its shape: one the relay check cannot compare (see tool-output-shape.ts). */
const SHAPE_CODES: ReadonlySet<string> = new Set(['unsupported_tool_message', 'unsupported_tool_output', 'unsupported_input_item', 'unsupported_tool_result', 'unsupported_message']);

/**
 * A request refused for the shape of what it relays is written to the audit trail (a
 * `rejection` with reason `unknown_shape`, core's `reportRefusal`), like every other
 * adapter's shape refusal: an attempt to slip output past the relay check is on record.
 * The detail names where and which rule (the error's `param` and code: indices and field
 * names the proxy wrote), never the content. A report that fails changes nothing: the
 * request is refused either way.
 */
export async function auditShapeRefusal(ctx: RunContext, error: ProxyError): Promise<void> {
  if (!SHAPE_CODES.has(error.code)) return;
  try {
    await ctx.port.reportRefusal({
      runId: ctx.runId,
      sessionId: ctx.sessionId,
      principal: ctx.principal,
      reason: 'unknown_shape',
      detail: `${error.param ?? 'the request body'}: a part of a type the proxy cannot check (${error.code})`,
    });
  } catch {
    // As above: the refusal stands; the gate's own records show the outage.
  }
}
