/** One value of a call's arguments, addressed like the display findings (`/arguments/...`). */
export interface ArgumentLeaf {
  /** JSON Pointer into the call's display document (`/arguments/to`). */
  pointer: string;
  /** The path a person reads: `to`, `items[0].sku`. The raw keys: shown with escapes by the caller. */
  label: string;
  /** A scalar (string, number, boolean, null), or a stand-in for what lies deeper. */
  value: string | number | boolean | null | { collapsed: 'object' | 'array'; size: number };
}

export interface LeafOptions {
  /** Levels of nesting opened (1: only the top-level fields). Deeper values collapse to a stand-in. */
  depth: number;
  /** At most this many leaves; `more` counts the rest. */
  limit: number;
}

/**
 * The arguments as a flat list of values in document order, for the approver to read
 * field by field (and for the list's one-line summary). Bounded in depth and count:
 * a hostile call with a million keys yields `limit` leaves and a count, not a page.
 */
export function argumentLeaves(args: unknown, options: LeafOptions): { leaves: ArgumentLeaf[]; more: number } {
  const leaves: ArgumentLeaf[] = [];
  let more = 0;
  const visit = (value: unknown, pointer: string, label: string, depth: number): void => {
    if (leaves.length >= options.limit) {
      more += 1;
      return;
    }
    if (value !== null && typeof value === 'object') {
      const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
      if (depth >= options.depth || entries.length === 0) {
        leaves.push({ pointer, label, value: { collapsed: Array.isArray(value) ? 'array' : 'object', size: entries.length } });
        return;
      }
      for (const [key, child] of entries) {
        const childLabel = Array.isArray(value) ? `${label}[${key}]` : label === '' ? key : `${label}.${key}`;
        visit(child, `${pointer}/${escapePointer(key)}`, childLabel, depth + 1);
      }
      return;
    }
    leaves.push({ pointer, label, value: value as string | number | boolean | null });
  };
  visit(args, '/arguments', '', 0);
  // The arguments themselves as a scalar (not an object): one leaf without a label.
  return { leaves, more };
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
