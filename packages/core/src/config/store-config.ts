import { z } from 'zod';

/** Where an embedded approval service keeps its ledger: the same store `countersign serve` uses. */
export type StoreTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; connectionString: string; schema?: string | undefined };

/** The SQLite file a configuration file's store defaults to, relative to the file's folder. */
export const DEFAULT_CONFIG_STORE_PATH = '.countersign/countersign.sqlite';

/**
 * The `store` key of a configuration file (proxy, MCP gateway): `{ sqlite: path }` or
 * `{ databaseUrl: postgres://…, pgSchema? }`, or absent (the default SQLite file).
 */
export const storeConfigSchema = z
  .union([
    z.strictObject({ sqlite: z.string().min(1) }),
    z.strictObject({
      databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection string'),
      pgSchema: z.string().trim().min(1).max(200).optional(),
    }),
  ])
  .optional();

/** The store a checked `store` key names; `at` resolves a relative SQLite path against the file's folder. */
export function storeTargetOf(store: z.infer<typeof storeConfigSchema>, at: (path: string) => string, defaultPath = DEFAULT_CONFIG_STORE_PATH): StoreTarget {
  return store === undefined || 'sqlite' in store
    ? { kind: 'sqlite', path: at(store?.sqlite ?? defaultPath) }
    : { kind: 'postgres', connectionString: store.databaseUrl, schema: store.pgSchema };
}
