import { z } from 'zod';

/**
 * Every property name anywhere in a zod object schema (nested objects, arrays, unions),
 * for tests that hold reference documentation to the schema it describes.
 */
export function schemaKeys(schema: z.ZodType): Set<string> {
  const keys = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (typeof record.properties === 'object' && record.properties !== null) {
      for (const [key, value] of Object.entries(record.properties)) {
        keys.add(key);
        walk(value);
      }
    }
    for (const [key, value] of Object.entries(record)) if (key !== 'properties') walk(value);
  };
  walk(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));
  return keys;
}

/** The keys a Markdown reference documents: every `code span` at the start of a table row. */
export function documentedKeys(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^\| `([A-Za-z][A-Za-z0-9]*)` \|/gm)].map((m) => m[1]!));
}
