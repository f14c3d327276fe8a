import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentedKeys, schemaKeys } from '@countersign/core/config';
import { expect, it } from 'vitest';
import { authFileSchema } from './auth-file-schema.ts';

const REFERENCE = join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'auth-reference.md');

it('docs/auth-reference.md describes every key of the auth file schema, and no key the schema lacks', () => {
  const keys = schemaKeys(authFileSchema);
  expect(keys.has('trustedProxy') && keys.has('sharedSecretHeader') && keys.has('principals')).toBe(true);
  const documented = documentedKeys(readFileSync(REFERENCE, 'utf8'));
  expect([...keys].filter((key) => !documented.has(key)).sort()).toEqual([]);
  expect([...documented].filter((key) => !keys.has(key)).sort()).toEqual([]);
});
