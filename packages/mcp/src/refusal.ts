import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Why the gateway did not run a call: core's codes, plus the gateway's own. */
export interface CountersignRefusal {
  reason: string;
  message: string;
  toolName: string;
  proposalId?: string | undefined;
  /** The approval (or definition review) request a person must decide. */
  requestId?: string | undefined;
  /** Where that person decides it. */
  approvalUrl?: string | undefined;
}

/**
 * A refused call as an MCP tool result: `isError: true`, a text the model can read, and the
 * typed reason under `_meta.countersign` for clients and tests. Never a normal-looking result.
 */
export function refusalResult(refusal: CountersignRefusal): CallToolResult {
  const compact = Object.fromEntries(Object.entries(refusal).filter(([, v]) => v !== undefined));
  const link = refusal.approvalUrl === undefined ? '' : ` Decide it at ${refusal.approvalUrl}, then retry the identical call.`;
  return {
    isError: true,
    content: [{ type: 'text', text: `Countersign refused ${refusal.toolName}: ${refusal.reason}: ${refusal.message}.${link}` }],
    _meta: { countersign: compact },
  };
}

/** The approval page of a request, when the gateway knows where the approval service is. */
export function approvalLink(base: string | undefined, requestId: string | undefined): string | undefined {
  if (base === undefined || requestId === undefined) return undefined;
  return `${base.replace(/\/+$/, '')}/requests/${encodeURIComponent(requestId)}`;
}
