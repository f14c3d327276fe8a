import type { PgDatabase } from '../database.ts';
import { ledgerSql } from '../ledger-sql.ts';
import { migrate } from '../migrations.ts';
import { createDatabase } from '../open.ts';
import { PostgresAuditLog } from '../postgres-audit-log.ts';
import { PostgresLedger } from '../postgres-ledger.ts';
import { quoteSchema } from '../schema-name.ts';
import { dropSchema, randomSchema, TEST_PG_URL } from './test-database.ts';

/**
 * A ledger and audit log on a new schema, built from their parts so a test can watch
 * the database handle (statements sent, transactions opened). `cleanup` drops the schema.
 */
export async function tempParts(options: { maxBatch?: number } = {}): Promise<{
  db: PgDatabase;
  ledger: PostgresLedger;
  audit: PostgresAuditLog;
  schema: string;
  cleanup: () => Promise<void>;
}> {
  const schema = randomSchema();
  const db = createDatabase({ connectionString: TEST_PG_URL });
  await migrate(db, schema);
  const quoted = quoteSchema(schema);
  const audit = new PostgresAuditLog(db, quoted, schema, { maxBatch: options.maxBatch });
  return {
    db,
    ledger: new PostgresLedger(db, ledgerSql(quoted), audit),
    audit,
    schema,
    cleanup: async () => {
      await db.close();
      await dropSchema(schema);
    },
  };
}
