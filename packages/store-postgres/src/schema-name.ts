import { escapeIdentifier } from 'pg';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The schema name quoted for SQL. Restricted to lower-case identifiers so the name
 * means the same quoted or not (psql, migrations written by hand) and never
 * needs escaping in practice; escapeIdentifier is the belt to those braces.
 */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(`schema must match ${SCHEMA_NAME} (got ${JSON.stringify(schema)})`);
  }
  return escapeIdentifier(schema);
}
