import type { DefinitionStore, PinState, RegisterResult, ToolPin, ToolRegistration } from '@countersign/core/catalog';
import type { SqliteConnection } from './connection.ts';
import { pinFromRow, pinValues, registrationFromRow } from '@countersign/core/store-kit';

const RECORD = 'INSERT INTO tool_definitions (digest, definition, first_seen_at) VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING';
const GET_DEFINITION = 'SELECT definition, first_seen_at FROM tool_definitions WHERE digest = ?';
const PIN_COLUMNS = 'tool_name, status, trusted_digest, pending_digest, updated_at';
const GET_PIN = `SELECT ${PIN_COLUMNS} FROM tool_pins WHERE tool_name = ?`;
const LIST_PINS = `SELECT ${PIN_COLUMNS} FROM tool_pins ORDER BY tool_name`;
const INSERT_PIN = `INSERT INTO tool_pins (${PIN_COLUMNS}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tool_name) DO NOTHING`;
const UPSERT_PIN = `INSERT INTO tool_pins (${PIN_COLUMNS}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tool_name) DO UPDATE SET
  status = excluded.status, trusted_digest = excluded.trusted_digest, pending_digest = excluded.pending_digest, updated_at = excluded.updated_at`;
// IS compares NULLs as equal: an absent digest matches only an absent digest.
const REPLACE_PIN = `UPDATE tool_pins SET status = ?, trusted_digest = ?, pending_digest = ?, updated_at = ?
  WHERE tool_name = ? AND status = ? AND trusted_digest IS ? AND pending_digest IS ? AND updated_at = ?`;
const REGISTER = `INSERT INTO tool_registrations (tool_name, definition_digest, agent, updated_at) VALUES (?, ?, ?, ?)
  ON CONFLICT (tool_name) DO UPDATE SET definition_digest = excluded.definition_digest, updated_at = excluded.updated_at
  WHERE tool_registrations.agent = excluded.agent`;
const REG_COLUMNS = 'tool_name, definition_digest, agent, updated_at';
const GET_REGISTRATION = `SELECT ${REG_COLUMNS} FROM tool_registrations WHERE tool_name = ?`;
const LIST_REGISTRATIONS = `SELECT ${REG_COLUMNS} FROM tool_registrations ORDER BY tool_name`;

type Row = Record<string, unknown>;

/** Tool definitions, pins and registrations in the store's SQLite file (one write queue with the ledger). */
export class SqliteDefinitionStore implements DefinitionStore {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async recordDefinition(digest: string, text: string, now: number): Promise<void> {
    await this.#conn.write(() => this.#conn.statement(RECORD).run(digest, text, now));
  }

  async getDefinitionText(digest: string): Promise<{ text: string; firstSeenAt: number } | undefined> {
    const row = this.#conn.read(() => this.#conn.statement(GET_DEFINITION).get(digest)) as Row | undefined;
    return row === undefined ? undefined : { text: String(row.definition), firstSeenAt: Number(row.first_seen_at) };
  }

  async getPin(toolName: string): Promise<ToolPin | undefined> {
    const row = this.#conn.read(() => this.#conn.statement(GET_PIN).get(toolName)) as Row | undefined;
    return row === undefined ? undefined : pinFromRow(row);
  }

  async listPins(): Promise<ToolPin[]> {
    return (this.#conn.read(() => this.#conn.statement(LIST_PINS).all()) as Row[]).map(pinFromRow);
  }

  async replacePin(expected: PinState | undefined, next: ToolPin): Promise<boolean> {
    return this.#conn.write(() => {
      if (expected === undefined) return this.#conn.statement(INSERT_PIN).run(...pinValues(next)).changes === 1;
      const changed = this.#conn
        .statement(REPLACE_PIN)
        .run(next.status, next.trustedDigest ?? null, next.pendingDigest ?? null, next.updatedAt, next.toolName, expected.status, expected.trustedDigest ?? null, expected.pendingDigest ?? null, expected.updatedAt);
      return changed.changes === 1;
    });
  }

  async putPin(pin: ToolPin): Promise<void> {
    await this.#conn.write(() => this.#conn.statement(UPSERT_PIN).run(...pinValues(pin)));
  }

  async register(registration: ToolRegistration): Promise<RegisterResult> {
    const { toolName, definitionDigest, agent, updatedAt } = registration;
    const changes = await this.#conn.write(() => this.#conn.statement(REGISTER).run(toolName, definitionDigest, agent, updatedAt).changes);
    return changes === 1 ? { ok: true } : { ok: false, reason: 'registered_by_other_agent' };
  }

  async getRegistration(toolName: string): Promise<ToolRegistration | undefined> {
    const row = this.#conn.read(() => this.#conn.statement(GET_REGISTRATION).get(toolName)) as Row | undefined;
    return row === undefined ? undefined : registrationFromRow(row);
  }

  async listRegistrations(): Promise<ToolRegistration[]> {
    return (this.#conn.read(() => this.#conn.statement(LIST_REGISTRATIONS).all()) as Row[]).map(registrationFromRow);
  }
}
