import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { DEFAULT_DB_PATH, type StoreTarget } from './serve/store-target.ts';
import { CliError } from './cli-error.ts';
import type { CommandContext } from './command-context.ts';

export interface StoreFlags {
  db?: string;
  databaseUrl?: string;
  pgSchema?: string;
}

/** Adds --db, --database-url and --pg-schema, the same on every command that reads a store. */
export function addStoreOptions(command: Command): Command {
  return command
    .option('--db <path>', `SQLite database file (default ${DEFAULT_DB_PATH})`)
    .option('--database-url <url>', 'PostgreSQL connection string instead of SQLite (env COUNTERSIGN_DATABASE_URL)')
    .option('--pg-schema <name>', 'PostgreSQL schema to use (env COUNTERSIGN_PG_SCHEMA)');
}

/** Whether the flags or the environment name a store at all. */
export function storeGiven(ctx: CommandContext, flags: StoreFlags): boolean {
  return flags.db !== undefined || flags.databaseUrl !== undefined || nonEmpty(ctx.io.env.COUNTERSIGN_DATABASE_URL) !== undefined;
}

/**
 * The store the flags name: --database-url (or its env var) selects Postgres, else
 * SQLite at --db or the default path. An explicit --db wins over the env var.
 * `mustExist`: refuse a SQLite path with no file, so a read-only command never
 * silently creates an empty database and reports on it.
 */
export function storeTargetFrom(ctx: CommandContext, flags: StoreFlags, opts: { mustExist: boolean }): StoreTarget {
  const env = ctx.io.env;
  if (flags.db !== undefined && flags.databaseUrl !== undefined) {
    throw new CliError('usage', 'give either --db or --database-url, not both');
  }
  const url = flags.databaseUrl ?? (flags.db === undefined ? nonEmpty(env.COUNTERSIGN_DATABASE_URL) : undefined);
  if (url !== undefined) {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new CliError('usage', '--database-url must be a postgres:// or postgresql:// connection string');
    }
    const schema = flags.pgSchema ?? nonEmpty(env.COUNTERSIGN_PG_SCHEMA);
    return { kind: 'postgres', connectionString: url, schema };
  }
  if (flags.pgSchema !== undefined) throw new CliError('usage', '--pg-schema needs --database-url');
  const path = ctx.resolvePath(flags.db ?? DEFAULT_DB_PATH);
  if (opts.mustExist && !existsSync(path)) throw new CliError('io', `no database at ${path}`);
  return { kind: 'sqlite', path };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
