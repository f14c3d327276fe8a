import { readDefinition } from '../../catalog/read-definition.ts';
import type { PinStatus } from '../../catalog/types.ts';
import type { Proposal } from '../../ledger/types.ts';
import type { GateDeps } from '../config.ts';
import { entryFor } from '../common/tool-scope.ts';
import { reviewRegistrantOf, reviewSubjectOf } from './definition-review.ts';
import type { ToolDefinition } from '../../catalog/tools.ts';

/**
 * The tool definition an approver is shown beside a call, read from the store by the
 * digest recorded with the call, so every replica shows the same one whether or not it
 * hosts the tool. `pinned`: the call's definition is the one trusted now. `changed`: the
 * tool's definition is no longer the call's (the call cannot run); `current` is the one
 * the tool has now. `unknown_tool`: no such tool here; `none`: the tool has no definition.
 */
export interface DefinitionView {
  status: 'pinned' | 'changed' | 'unknown_tool' | 'none';
  definition?: ToolDefinition | undefined;
  current?: ToolDefinition | undefined;
  currentDigest?: string | undefined;
  /** The store's pin status for tools pinned in the store (not for tools registered in code). */
  pin?: PinStatus | undefined;
}

/** For a definition review: the trusted definition and the new one, side by side. */
export interface DefinitionReviewView {
  toolName: string;
  previousDigest?: string | undefined;
  previous?: ToolDefinition | undefined;
  digest: string;
  next?: ToolDefinition | undefined;
  /** Where the tool's pin stands now (a review whose pin moved on is stale). */
  pin?: PinStatus | undefined;
  /** The agent that registered this definition; absent for a tool an MCP server or a configured catalogue serves. */
  registeredBy?: string | undefined;
}

export async function definitionViewOf(deps: GateDeps, proposal: Proposal): Promise<DefinitionView> {
  const recorded = (await readDefinition(deps.definitions, proposal.definitionDigest))?.definition;
  const entry = entryFor(deps, await deps.catalog.resolve(proposal.toolName), proposal.agent);
  if (entry === undefined) return compact({ status: 'unknown_tool', definition: recorded });
  if (proposal.definitionDigest === undefined && entry.definitionDigest === undefined) return { status: 'none' };
  const pin = entry.vouched === true ? undefined : await deps.definitions.getPin(proposal.toolName);
  const trustedNow = entry.vouched === true ? entry.definitionDigest : pin?.status === 'trusted' ? pin.trustedDigest : undefined;
  const current = entry.definitionDigest === trustedNow ? entry.definitionDigest : undefined;
  if (current !== undefined && current === proposal.definitionDigest) {
    return compact({ status: 'pinned', definition: recorded ?? entry.definition, pin: pin?.status });
  }
  return compact({
    status: 'changed',
    definition: recorded,
    current: entry.definition,
    currentDigest: entry.definitionDigest,
    pin: pin?.status,
  });
}

export async function reviewViewOf(deps: GateDeps, proposal: Proposal): Promise<DefinitionReviewView | undefined> {
  const subject = reviewSubjectOf(proposal);
  if (subject === undefined) return undefined;
  const [previous, next, pin] = await Promise.all([
    readDefinition(deps.definitions, subject.previousDigest),
    readDefinition(deps.definitions, subject.digest),
    deps.definitions.getPin(subject.toolName),
  ]);
  return compact({
    toolName: subject.toolName,
    previousDigest: subject.previousDigest,
    previous: previous?.definition,
    digest: subject.digest,
    next: next?.definition,
    pin: pin?.status,
    registeredBy: reviewRegistrantOf(proposal),
  });
}

/** Drops absent fields, so views compare and serialize without `undefined` members. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
