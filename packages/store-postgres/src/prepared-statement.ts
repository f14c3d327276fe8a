import { createHash } from 'node:crypto';

/** SQL sent as a named (server-side prepared) statement. */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

/**
 * A named statement for a hot query. PostgreSQL parses and plans it once per
 * connection (then reuses a generic plan when that is no worse), instead of on
 * every call: for the consume CTE, planning cost more than executing.
 * The name is derived from the text, so one name never stands for two texts on a
 * connection (node-postgres refuses that). Its result columns must be listed, not
 * `*`: a prepared `SELECT *` fails with "cached plan must not change result type"
 * once a migration adds a column to the table.
 */
export function preparedStatement(text: string): PreparedStatement {
  return { name: `countersign_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
}
