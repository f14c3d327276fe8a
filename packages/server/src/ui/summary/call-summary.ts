import type { ApprovalView } from '../../views/request-views.ts';
import { clipText } from '../format.ts';
import { formatNumber } from './amount.ts';
import { type ArgumentLeaf, argumentLeaves } from './argument-leaves.ts';

/** One field of a one-line summary: raw text, escaped for display by the caller. */
export interface SummaryField {
  label: string;
  /** The value as a person reads it (strings quoted, amounts grouped), cut to `MAX_VALUE`. */
  text: string;
  truncated: boolean;
}

export interface CallSummary {
  fields: SummaryField[];
  /** Fields left out to keep to one line. */
  more: number;
}

const MAX_FIELDS = 4;
const MAX_VALUE = 40;
const MAX_LABEL = 24;
const LEAF_OPTIONS = { depth: 2, limit: 40 };

/**
 * One-line summaries for a list of requests: for each tool, the fields that differ
 * between its calls on the list (what tells them apart), or every field when a tool has
 * one call or its calls agree. Keyed by request id; definition reviews get none.
 */
export function callSummaries(views: readonly ApprovalView[]): Map<string, CallSummary> {
  // Values a person must look at closely (hidden characters, outside the schema) come first.
  const flaggedFirst = (view: ApprovalView, leaves: ArgumentLeaf[]) => {
    const pointers = [...view.display.findings.map((f) => f.pointer), ...view.display.inputSchema.problems.map((p) => p.pointer)];
    const flagged = (leaf: ArgumentLeaf) => pointers.some((p) => p === leaf.pointer || p.startsWith(`${leaf.pointer}/`));
    return [...leaves.filter(flagged), ...leaves.filter((leaf) => !flagged(leaf))];
  };
  const leavesById = new Map<string, ArgumentLeaf[]>();
  const byTool = new Map<string, ApprovalView[]>();
  for (const view of views) {
    if (view.review !== undefined) continue;
    leavesById.set(view.requestId, argumentLeaves(JSON.parse(view.call.canonicalArguments), LEAF_OPTIONS).leaves);
    byTool.set(view.call.toolName, [...(byTool.get(view.call.toolName) ?? []), view]);
  }
  const summaries = new Map<string, CallSummary>();
  for (const group of byTool.values()) {
    const differing = differingPointers(group.map((v) => leavesById.get(v.requestId) ?? []));
    for (const view of group) {
      const leaves = leavesById.get(view.requestId) ?? [];
      const chosen = flaggedFirst(view, differing.size === 0 ? leaves : leaves.filter((leaf) => differing.has(leaf.pointer)));
      summaries.set(view.requestId, {
        fields: chosen.slice(0, MAX_FIELDS).map(summaryField),
        more: chosen.length - Math.min(chosen.length, MAX_FIELDS),
      });
    }
  }
  return summaries;
}

/** Pointers whose value is not the same in every call (a field missing from some call differs too). */
function differingPointers(calls: readonly ArgumentLeaf[][]): Set<string> {
  if (calls.length < 2) return new Set();
  const values = new Map<string, Set<string>>();
  for (const leaves of calls) {
    for (const leaf of leaves) {
      const seen = values.get(leaf.pointer) ?? new Set<string>();
      seen.add(JSON.stringify(leaf.value));
      values.set(leaf.pointer, seen);
    }
  }
  const differing = new Set<string>();
  for (const [pointer, seen] of values) {
    const present = calls.filter((leaves) => leaves.some((leaf) => leaf.pointer === pointer)).length;
    if (seen.size > 1 || present < calls.length) differing.add(pointer);
  }
  return differing;
}

export function summaryField(leaf: ArgumentLeaf): SummaryField {
  const full = leafText(leaf);
  const text = clipText(full, MAX_VALUE);
  return { label: clipText(leaf.label, MAX_LABEL), text, truncated: text !== full };
}

/** A leaf's value as text: strings quoted (JSON escapes for quotes and line breaks), numbers grouped when they are amounts. */
export function leafText(leaf: ArgumentLeaf): string {
  const { value } = leaf;
  if (typeof value === 'number') return formatNumber(value, leaf.label);
  if (typeof value === 'string') return JSON.stringify(value);
  if (value !== null && typeof value === 'object') {
    return value.collapsed === 'array' ? `[${value.size} item${value.size === 1 ? '' : 's'}]` : `{${value.size} field${value.size === 1 ? '' : 's'}}`;
  }
  return String(value);
}
