import type { AuditValue } from '../../audit/types.ts';
import type { CatalogEntry, ToolCatalog } from '../../catalog/types.ts';
import { sha256Hex } from '../../digest.ts';
import type { Verdict } from '../../policy/types.ts';
import type { ToolDefinition } from '../../catalog/tools.ts';
import type { IntentConfig, IntentDecision, IntentMatchResult, IntentRecord, IntentTool } from './types.ts';

/** The intent stage's settings with defaults filled in (see `IntentConfig`). */
export interface ResolvedIntent {
  config: IntentConfig;
  uncertain: 'deny' | 'approve';
  timeoutMs: number;
  catalogueTtlMs: number;
  /** The last catalogue listing and when it was read (see `catalogueTtlMs`). */
  listed: { at: number; tools: Promise<readonly ListedTool[]> } | undefined;
}

/** Longest task sentence a call may carry: a summary, not a conversation. */
export const MAX_TASK_LENGTH = 4000;
/** Most accepted offers (`offered`) a call may carry with its task. */
export const MAX_OFFERS = 16;
const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_ROUTE_TTL_SECONDS = 900;
const DECISIONS: readonly IntentDecision[] = ['match', 'mismatch', 'uncertain'];

/** Checks the configuration once, at gate construction: a bad mode or timeout is a TypeError, not a silent default. */
export function resolveIntent(config: IntentConfig | undefined): ResolvedIntent | undefined {
  if (config === undefined) return undefined;
  if (typeof config?.matcher?.match !== 'function') throw new TypeError('intent.matcher must have a match() function');
  const uncertain = config.uncertain ?? 'deny';
  if (uncertain !== 'deny' && uncertain !== 'approve') throw new TypeError('intent.uncertain must be "deny" or "approve"');
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError('intent.timeoutMs must be a positive number');
  const catalogueTtlMs = config.catalogueTtlMs ?? 10_000;
  if (!Number.isFinite(catalogueTtlMs) || catalogueTtlMs < 0) throw new TypeError('intent.catalogueTtlMs must be a non-negative number');
  return { config, uncertain, timeoutMs, catalogueTtlMs, listed: undefined };
}

/** Where the task of a call comes from: the sentence itself, or the id of a stored task summary. */
export interface TaskReference {
  task?: string | undefined;
  taskId?: string | undefined;
  /** The assistant's offers the user only accepted: the matcher sees them apart from the user's words. */
  offered?: readonly string[] | undefined;
  runId: string;
  sessionId: string;
  principal: string;
  toolName: string;
}

/** What the stage makes of a policy verdict: kept (maybe routed to a person), or denied. */
export type IntentStep = { kind: 'keep'; verdict: Verdict; record?: IntentRecord | undefined } | { kind: 'deny'; record: IntentRecord; message: string };

/**
 * The intent stage (after policy, at propose time only). It never loosens: a policy
 * `deny` is not even asked about, `match` keeps the verdict, `mismatch` denies, and
 * `uncertain` denies or turns `allow` into `approve`. Never throws: a matcher that throws,
 * hangs past the timeout or answers something malformed counts as `uncertain`.
 */
export async function checkIntent(
  intent: ResolvedIntent | undefined,
  catalog: ToolCatalog,
  ref: TaskReference,
  entry: CatalogEntry | undefined,
  verdict: Verdict,
  now: number,
  mayList: ListFilter = LIST_ALL,
): Promise<IntentStep> {
  if (intent === undefined || verdict.kind === 'deny') return { kind: 'keep', verdict };
  const { task, problem } = await taskOf(intent, ref);
  const answer = task === undefined ? uncertainBecause(intent, problem ?? 'no_task') : await askMatcher(intent, catalog, task, ref.toolName, entry, now, mayList, ref.offered);
  const base = { taskDigest: task === undefined ? null : sha256Hex(task), matcher: answer.matcher, score: answer.score, decision: answer.decision };
  const withProblem = answer.problem === undefined ? {} : { problem: answer.problem };
  if (answer.decision === 'match') return { kind: 'keep', verdict, record: { ...base, effect: 'none', ...withProblem } };
  if (answer.decision === 'uncertain' && intent.uncertain === 'approve') {
    const routed = verdict.kind === 'allow' ? routeToPerson(intent, verdict.ruleId) : verdict;
    return { kind: 'keep', verdict: routed, record: { ...base, effect: 'approve', ...withProblem } };
  }
  const message =
    answer.decision === 'mismatch'
      ? `the current task does not call for ${ref.toolName}`
      : `could not confirm that the current task calls for ${ref.toolName} (${answer.problem ?? 'uncertain'})`;
  return { kind: 'deny', record: { ...base, effect: 'deny', ...withProblem }, message };
}

/** The record as an audit detail value (no undefined fields). */
export function intentAuditValue(record: IntentRecord): AuditValue {
  const value: { [key: string]: AuditValue } = {
    taskDigest: record.taskDigest,
    matcher: record.matcher,
    score: record.score,
    decision: record.decision,
    effect: record.effect,
  };
  if (record.problem !== undefined) value.problem = record.problem;
  return value;
}

async function taskOf(intent: ResolvedIntent, ref: TaskReference): Promise<{ task?: string; problem?: string }> {
  if (ref.task !== undefined) return { task: ref.task };
  if (ref.taskId === undefined) return { problem: 'no_task' };
  if (intent.config.resolveTask === undefined) return { problem: 'task_store_missing' };
  try {
    const task = await intent.config.resolveTask(ref.taskId, ref);
    if (typeof task !== 'string' || task === '' || task.length > MAX_TASK_LENGTH) return { problem: 'unknown_task' };
    return { task };
  } catch {
    return { problem: 'task_store_failed' };
  }
}

type Answer = { decision: IntentDecision; score: number; matcher: string; problem?: string | undefined };

function uncertainBecause(intent: ResolvedIntent, problem: string): Answer {
  return { decision: 'uncertain', score: 0, matcher: matcherId(intent), problem };
}

async function askMatcher(
  intent: ResolvedIntent,
  catalog: ToolCatalog,
  task: string,
  toolName: string,
  entry: CatalogEntry | undefined,
  now: number,
  mayList: ListFilter,
  offered: readonly string[] | undefined,
): Promise<Answer> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A matcher that ignores its signal still loses the race: the stage never waits past the timeout.
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('intent check timed out'));
      resolve('timeout');
    }, intent.timeoutMs);
  });
  try {
    const tool = withServer(intent, matchToolOf(toolName, entry?.definition));
    const catalogue = await catalogueOf(intent, catalog, tool, now, mayList);
    const result = await Promise.race([intent.config.matcher.match({ task, tool, catalogue, ...(offered === undefined || offered.length === 0 ? {} : { offered }) }, controller.signal), timedOut]);
    if (result === 'timeout') return uncertainBecause(intent, 'timeout');
    return checkedResult(intent, result);
  } catch (error) {
    return uncertainBecause(intent, `matcher_error: ${String(error instanceof Error ? error.message : error).slice(0, 200)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** A matcher's answer, checked: anything but a known decision with a finite score is `uncertain`. */
function checkedResult(intent: ResolvedIntent, result: IntentMatchResult): Answer {
  if (typeof result !== 'object' || result === null || !DECISIONS.includes(result.decision) || typeof result.score !== 'number' || !Number.isFinite(result.score)) {
    return uncertainBecause(intent, 'invalid_result');
  }
  const matcher = typeof result.matcher === 'string' && result.matcher !== '' ? result.matcher.slice(0, 200) : matcherId(intent);
  return { decision: result.decision, score: result.score, matcher };
}

function matcherId(intent: ResolvedIntent): string {
  const id = intent.config.matcher.id;
  return typeof id === 'string' && id !== '' ? id.slice(0, 200) : 'unknown';
}

/** The tools to rank against, the called tool always in its current pinned form (listing reused for `catalogueTtlMs`). */
async function catalogueOf(intent: ResolvedIntent, catalog: ToolCatalog, tool: IntentTool, now: number, mayList: ListFilter): Promise<readonly IntentTool[]> {
  if (intent.listed === undefined || now - intent.listed.at > intent.catalogueTtlMs || now < intent.listed.at) {
    const tools = listTools(intent, catalog);
    intent.listed = { at: now, tools };
    // A failed listing is not kept: the next call lists again.
    tools.catch(() => {
      if (intent.listed?.tools === tools) intent.listed = undefined;
    });
  }
  const listed = await intent.listed.tools;
  // One listing serves every agent; each call ranks only against the tools its agent may use.
  return [...listed.filter((t) => t.tool.name !== tool.name && mayList(t)).map((t) => t.tool), tool];
}

async function listTools(intent: ResolvedIntent, catalog: ToolCatalog): Promise<readonly ListedTool[]> {
  if (intent.config.catalogue !== undefined) return (await intent.config.catalogue()).map((tool) => ({ name: tool.name, tool }));
  const entries = (await catalog.list?.()) ?? [];
  return entries.map((e) => ({ name: e.name, registeredBy: e.registeredBy, tool: withServer(intent, matchToolOf(e.name, e.definition)) }));
}

/** A listed tool with the agent that registered it, if one did (see `mayUseTool`). */
export interface ListedTool {
  name: string;
  registeredBy?: string | undefined;
  tool: IntentTool;
}

/** Whether a listed tool may be shown to the matcher for this call. */
export type ListFilter = (tool: ListedTool) => boolean;

const LIST_ALL: ListFilter = () => true;

function withServer(intent: ResolvedIntent, tool: IntentTool): IntentTool {
  const server = intent.config.serverOf?.(tool.name);
  return typeof server === 'string' && server !== '' ? { ...tool, server } : tool;
}

/** The tool as the matcher sees it: name, description and parameter descriptions of the pinned definition. */
export function matchToolOf(name: string, definition: ToolDefinition | undefined): IntentTool {
  const tool: IntentTool = { name };
  if (typeof definition?.description === 'string') tool.description = definition.description;
  const properties = definition?.inputSchema?.properties;
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    const parameters: NonNullable<IntentTool['parameters']> = {};
    for (const [key, schema] of Object.entries(properties as Record<string, unknown>)) {
      const s = typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>) : {};
      parameters[key] = {
        ...(typeof s.description === 'string' ? { description: s.description } : {}),
        ...(typeof s.type === 'string' ? { type: s.type } : {}),
      };
    }
    tool.parameters = parameters;
  }
  return tool;
}

/**
 * Rule ids of approval requests the intent stage opened start with this: authorize
 * requires their approval whatever policy says then (the policy rule id follows it).
 */
export const INTENT_RULE_PREFIX = 'intent:';

/** Whether a call's approval request was opened by the intent stage routing it to a person. */
export function routedByIntent(request: { ruleId?: string | undefined } | undefined): boolean {
  return request?.ruleId?.startsWith(INTENT_RULE_PREFIX) === true;
}

function routeToPerson(intent: ResolvedIntent, ruleId: string): Verdict {
  const approval = intent.config.approval;
  return {
    kind: 'approve',
    ruleId: `${INTENT_RULE_PREFIX}${ruleId}`,
    approval: {
      eligible: approval?.eligible ?? { roles: ['admin'] },
      requiredApprovals: approval?.requiredApprovals ?? 1,
      ttlSeconds: approval?.ttlSeconds ?? DEFAULT_ROUTE_TTL_SECONDS,
    },
    tightenedBy: 'intent',
  };
}
