import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { documentedKeys, schemaKeys } from '../config/schema-keys.ts';
import { policyDocumentSchema } from './rules.ts';

const REFERENCE = join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'policy-reference.md');

it('docs/policy-reference.md describes every key of the policy schema, and no key the schema lacks', () => {
  const keys = schemaKeys(policyDocumentSchema);
  expect([...keys]).toEqual(expect.arrayContaining(['version', 'defaults', 'approvalTtlSeconds', 'rules', 'when', 'principalSelf', 'required', 'ttlSeconds', 'definitionReview']));
  const documented = documentedKeys(readFileSync(REFERENCE, 'utf8'));
  expect([...keys].filter((key) => !documented.has(key)).sort()).toEqual([]);
  expect([...documented].filter((key) => !keys.has(key)).sort()).toEqual([]);
});
