import type { Tool, ToolDefinition } from './tools.ts';

/**
 * One tool as a catalogue knows it now. `definitionDigest` is the digest of
 * `definition` (absent when the tool has no definition). `execute` is present only for
 * tools the gate runs itself (`gate.dispatch`); tools that run elsewhere (in a remote
 * agent, a workflow engine) are authorized and completed, never executed here.
 */
export interface CatalogEntry {
  name: string;
  definition?: ToolDefinition | undefined;
  definitionDigest?: string | undefined;
  execute?: Tool['execute'] | undefined;
  /**
   * The catalogue itself vouches for this definition: tools registered in code, where
   * the code is the pin (a changed definition is a new deploy, reviewed as code). Entries
   * that are not vouched for (registered by an agent at run time, served by an MCP
   * server) run only under the digest pinned in the store.
   */
  vouched?: boolean | undefined;
  /**
   * The agent that registered this tool at run time (`registerTools`): only that agent may
   * propose, authorize or admit it unless the deployment shares it (`sharedTools`).
   * Undefined for tools registered in code or served by a configured catalogue.
   */
  registeredBy?: string | undefined;
}

/** Where the gate looks tools up; the definition may change between two calls. */
export interface ToolCatalog {
  /** The tool's current entry, or undefined when there is no such tool. */
  resolve(name: string): Promise<CatalogEntry | undefined>;
  /** Every tool, for listings (an MCP gateway's tools/list, `countersign tools list`). */
  list?(): Promise<CatalogEntry[]>;
}

/**
 * `trusted`: calls run under `trustedDigest`. `changed`: the tool now has another
 * definition (`pendingDigest`) awaiting a person's review; nothing runs. `disabled`: a
 * reviewer refused `pendingDigest`; nothing runs until an operator pins a definition.
 */
export type PinStatus = 'trusted' | 'changed' | 'disabled';

export interface ToolPin {
  toolName: string;
  status: PinStatus;
  /** The definition calls may run under; absent until a first definition was trusted. */
  trustedDigest?: string | undefined;
  /** `changed`: the definition under review; `disabled`: the one that was refused. */
  pendingDigest?: string | undefined;
  updatedAt: number;
}

/**
 * What a compare-and-set compares: the whole pin. `updatedAt` counts: each move to
 * `changed` is its own review, so two writers that saw the same move agree on it.
 */
export type PinState = Omit<ToolPin, 'toolName'>;

/** A definition as first seen, kept by digest so any replica can show it. */
export interface RecordedDefinition {
  digest: string;
  definition: ToolDefinition;
  firstSeenAt: number;
}

/** A tool an agent runs itself and registered with the approval service. */
export interface ToolRegistration {
  toolName: string;
  definitionDigest: string;
  /** The agent that registered it first: only it may change the definition. */
  agent: string;
  updatedAt: number;
}

export type RegisterResult = { ok: true } | { ok: false; reason: 'registered_by_other_agent' };

/**
 * Tool definitions, pins and agent registrations, in the store the ledger lives in.
 * Implementations (memory, SQLite, Postgres) pass `runDefinitionStoreConformance`, and
 * throw LedgerError('store_unavailable') on an outage (callers fail closed).
 */
export interface DefinitionStore {
  /**
   * Keeps `text` (the canonical definition text, see `definitionText`) under `digest`,
   * its SHA-256. Idempotent: a digest already recorded keeps its first record.
   */
  recordDefinition(digest: string, text: string, now: number): Promise<void>;
  /** The recorded text, re-checked against its digest by the caller (`readDefinition`). */
  getDefinitionText(digest: string): Promise<{ text: string; firstSeenAt: number } | undefined>;

  getPin(toolName: string): Promise<ToolPin | undefined>;
  listPins(): Promise<ToolPin[]>;
  /**
   * Atomically replaces the pin when it equals `expected` (status, both digests and
   * `updatedAt`), or creates it when `expected` is undefined and there is none. Of
   * concurrent writers expecting the same state, exactly one gets true.
   */
  replacePin(expected: PinState | undefined, next: ToolPin): Promise<boolean>;
  /** Sets the pin whatever it was (an operator pinning from a file). */
  putPin(pin: ToolPin): Promise<void>;

  /** Records or updates `registration`, unless another agent registered the tool first. */
  register(registration: ToolRegistration): Promise<RegisterResult>;
  getRegistration(toolName: string): Promise<ToolRegistration | undefined>;
  listRegistrations(): Promise<ToolRegistration[]>;
}
