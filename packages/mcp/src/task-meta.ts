import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { refusalResult } from './refusal.ts';

/**
 * `_meta` keys an agent runtime uses to tell the gateway the user's current task, for the
 * approval service's intent stage: `countersign/task` (the one sentence the runtime
 * extracted) or `countersign/taskId` (a stored task summary), and `countersign/offered`
 * (the actions the assistant offered that the user only accepted, as the extractor gave
 * them: the matcher then does not read "ok sure" as the user asking for the offer).
 * Direct mode only: a recorded call keeps the verdict it got when the model's call was
 * recorded (with the task the LLM proxy extracted then), and nothing at dispatch asks a
 * model again.
 */
export const TASK_META = 'countersign/task';
export const TASK_ID_META = 'countersign/taskId';
export const OFFERED_META = 'countersign/offered';

export type CallTask =
  | { ok: true; task?: string | undefined; taskId?: string | undefined; offered?: readonly string[] | undefined }
  | { ok: false; refusal: CallToolResult };

/** The task a `tools/call`'s `_meta` names; a value of the wrong type is refused, never ignored. */
export function taskFromMeta(meta: unknown, toolName: string): CallTask {
  const fields = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
  const task = fields[TASK_META];
  const taskId = fields[TASK_ID_META];
  const offered = fields[OFFERED_META];
  const invalid = (key: string, what: string) => ({ ok: false as const, refusal: refusalResult({ reason: 'invalid_meta', message: `_meta["${key}"] must be ${what}`, toolName }) });
  for (const [key, value] of [
    [TASK_META, task],
    [TASK_ID_META, taskId],
  ] as const) {
    if (value !== undefined && (typeof value !== 'string' || value === '')) return invalid(key, 'a non-empty string');
  }
  // The gate bounds the list and each offer again; the shape is checked here so a wrong one is refused, not dropped.
  if (offered !== undefined && (!Array.isArray(offered) || !offered.every((o) => typeof o === 'string' && o !== ''))) return invalid(OFFERED_META, 'a list of non-empty strings');
  return { ok: true, task: task as string | undefined, taskId: taskId as string | undefined, ...(offered === undefined ? {} : { offered: offered as string[] }) };
}
