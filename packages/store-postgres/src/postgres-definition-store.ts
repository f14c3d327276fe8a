import type { DefinitionStore, PinState, RegisterResult, ToolPin, ToolRegistration } from '@countersign/core/catalog';
import type { PgDatabase } from './database.ts';
import { pinFromRow, pinValues, registrationFromRow } from '@countersign/core/store-kit';

type Row = Record<string, unknown>;
const PIN_COLUMNS = 'tool_name, status, trusted_digest, pending_digest, updated_at';
const REG_COLUMNS = 'tool_name, definition_digest, agent, updated_at';

/** Tool definitions, pins and registrations in the store's schema: every replica sees the same pins. */
export class PostgresDefinitionStore implements DefinitionStore {
  readonly #db: PgDatabase;
  readonly #sql: ReturnType<typeof statements>;

  /** `schema` is already quoted. */
  constructor(db: PgDatabase, schema: string) {
    this.#db = db;
    this.#sql = statements(schema);
  }

  async recordDefinition(digest: string, text: string, now: number): Promise<void> {
    await this.#db.query(this.#sql.record, [digest, text, now]);
  }

  async getDefinitionText(digest: string): Promise<{ text: string; firstSeenAt: number } | undefined> {
    const row = (await this.#db.read<Row>(this.#sql.getDefinition, [digest])).rows[0];
    return row === undefined ? undefined : { text: String(row.definition), firstSeenAt: Number(row.first_seen_at) };
  }

  async getPin(toolName: string): Promise<ToolPin | undefined> {
    const row = (await this.#db.read<Row>(this.#sql.getPin, [toolName])).rows[0];
    return row === undefined ? undefined : pinFromRow(row);
  }

  async listPins(): Promise<ToolPin[]> {
    return (await this.#db.query<Row>(this.#sql.listPins)).rows.map(pinFromRow);
  }

  async replacePin(expected: PinState | undefined, next: ToolPin): Promise<boolean> {
    if (expected === undefined) return ((await this.#db.query(this.#sql.insertPin, pinValues(next))).rowCount ?? 0) === 1;
    const updated = await this.#db.query(this.#sql.replacePin, [
      ...pinValues(next),
      expected.status,
      expected.trustedDigest ?? null,
      expected.pendingDigest ?? null,
      expected.updatedAt,
    ]);
    return (updated.rowCount ?? 0) === 1;
  }

  async putPin(pin: ToolPin): Promise<void> {
    await this.#db.query(this.#sql.upsertPin, pinValues(pin));
  }

  async register(registration: ToolRegistration): Promise<RegisterResult> {
    const { toolName, definitionDigest, agent, updatedAt } = registration;
    const result = await this.#db.query(this.#sql.register, [toolName, definitionDigest, agent, updatedAt]);
    return (result.rowCount ?? 0) === 1 ? { ok: true } : { ok: false, reason: 'registered_by_other_agent' };
  }

  async getRegistration(toolName: string): Promise<ToolRegistration | undefined> {
    const row = (await this.#db.read<Row>(this.#sql.getRegistration, [toolName])).rows[0];
    return row === undefined ? undefined : registrationFromRow(row);
  }

  async listRegistrations(): Promise<ToolRegistration[]> {
    return (await this.#db.query<Row>(this.#sql.listRegistrations)).rows.map(registrationFromRow);
  }
}

function statements(s: string) {
  return {
    record: `INSERT INTO ${s}.tool_definitions (digest, definition, first_seen_at) VALUES ($1, $2, $3) ON CONFLICT (digest) DO NOTHING`,
    getDefinition: `SELECT definition, first_seen_at FROM ${s}.tool_definitions WHERE digest = $1`,
    getPin: `SELECT ${PIN_COLUMNS} FROM ${s}.tool_pins WHERE tool_name = $1`,
    listPins: `SELECT ${PIN_COLUMNS} FROM ${s}.tool_pins ORDER BY tool_name COLLATE "C"`,
    insertPin: `INSERT INTO ${s}.tool_pins (${PIN_COLUMNS}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tool_name) DO NOTHING`,
    upsertPin: `INSERT INTO ${s}.tool_pins (${PIN_COLUMNS}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tool_name) DO UPDATE SET
      status = EXCLUDED.status, trusted_digest = EXCLUDED.trusted_digest, pending_digest = EXCLUDED.pending_digest, updated_at = EXCLUDED.updated_at`,
    // One statement, so concurrent writers expecting the same state serialize on the row and one wins.
    replacePin: `UPDATE ${s}.tool_pins SET status = $2, trusted_digest = $3, pending_digest = $4, updated_at = $5
      WHERE tool_name = $1 AND status = $6 AND trusted_digest IS NOT DISTINCT FROM $7 AND pending_digest IS NOT DISTINCT FROM $8 AND updated_at = $9`,
    register: `INSERT INTO ${s}.tool_registrations (${REG_COLUMNS}) VALUES ($1, $2, $3, $4)
      ON CONFLICT (tool_name) DO UPDATE SET definition_digest = EXCLUDED.definition_digest, updated_at = EXCLUDED.updated_at
      WHERE ${s}.tool_registrations.agent = EXCLUDED.agent`,
    getRegistration: `SELECT ${REG_COLUMNS} FROM ${s}.tool_registrations WHERE tool_name = $1`,
    listRegistrations: `SELECT ${REG_COLUMNS} FROM ${s}.tool_registrations ORDER BY tool_name COLLATE "C"`,
  };
}
