import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { MatchTool } from '../matcher/types.ts';
import { type EvalRecord, loadCasaCatalogue, loadCasaSingleTurn, type MatchClass, type Split, splitOf, toMatchTool } from './casa.ts';
import type { MultiTurnRecord } from './multi-turn.ts';

export const MULTI_TURN_FILE = new URL('../../data/casa-multi-turn.json', import.meta.url);
/** The set the matcher was tuned on (see data/dev/SOURCE.md): a proxy, never the figure to quote. */
export const DEV_SET_FILE = new URL('../../data/dev/dev-set.json', import.meta.url);
/** The second dev set, written for issue #30's failure categories (data/dev2/SOURCE.md); tuned on too. */
export const DEV2_SET_FILE = new URL('../../data/dev2/dev2-set.json', import.meta.url);
/** Sets written blind by someone else, never tuned on; absent until they are merged. */
export const INDEPENDENT_DIR = new URL('../../data/independent/', import.meta.url);

/**
 * Every set the harness knows, in report order: CASA single-turn, CASA multi-turn, the dev
 * set, then each `*.json` under data/independent/ (sorted), when that folder exists.
 */
export function evalSetNames(dir: URL = INDEPENDENT_DIR): string[] {
  const independent = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => new URL(f, dir).pathname)
    : [];
  return ['single', 'multi', DEV_SET_FILE.pathname, DEV2_SET_FILE.pathname, ...independent];
}

export interface Dataset {
  name: string;
  catalogue: MatchTool[];
  records: (EvalRecord | MultiTurnRecord)[];
}

/** A dataset that cannot be used: the harness reports it as a usage error, never a crash. */
export class DatasetError extends Error {
  readonly code = 'invalid_dataset';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DatasetError';
  }
}

interface FileRecord {
  id?: unknown;
  task?: unknown;
  conversation?: unknown;
  tool?: { server?: unknown; name?: unknown };
  class?: unknown;
  template?: unknown;
}

const CLASSES: readonly MatchClass[] = ['correct', 'wrong', 'null'];

/**
 * `single` (the vendored CASA set), `multi` (its multi-turn variant) or a JSON file
 * `{ records: [{ id, task | conversation, tool: { server, name }, class }], catalogue? }`;
 * without a catalogue, tools are looked up in the CASA catalogue.
 */
export function loadDataset(which: string, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): Dataset {
  const casa = loadCasaCatalogue();
  if (which === 'single') return { name: 'casa-single-turn', catalogue: casa, records: loadCasaSingleTurn(casa) };
  const path = which === 'multi' ? MULTI_TURN_FILE.pathname : which;
  let parsed: { records?: unknown; catalogue?: unknown };
  try {
    parsed = JSON.parse(which === 'multi' ? readFileSync(MULTI_TURN_FILE, 'utf8') : readFile(path));
  } catch (error) {
    throw new DatasetError(`cannot read dataset ${which}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || !Array.isArray(parsed.records)) {
    throw new DatasetError(`dataset ${which}: expected an object with a "records" array`);
  }
  const catalogue = Array.isArray(parsed.catalogue) ? parsed.catalogue.map((t, i) => catalogueTool(t, i, which)) : casa;
  const records = (parsed.records as FileRecord[]).map((r, i) => toRecord(r, i, catalogue, which));
  return { name: which === 'multi' ? 'casa-multi-turn' : displayName(path), catalogue, records };
}

const DATA_DIR = new URL('../../data/', import.meta.url).pathname;

/** The package's own sets are named from its data folder (`dev/dev-set.json`), others by their path. */
function displayName(path: string): string {
  return path.startsWith(DATA_DIR) ? path.slice(DATA_DIR.length) : path;
}

/** A catalogue entry: a MatchTool, or an MCP tool definition (`inputSchema`) with its `server`. */
function catalogueTool(t: unknown, i: number, which: string): MatchTool {
  const raw = t as { name?: unknown; server?: unknown; inputSchema?: unknown; parameters?: unknown };
  if (raw === null || typeof raw !== 'object' || typeof raw.name !== 'string') throw new DatasetError(`dataset ${which}, catalogue entry ${i}: needs a name`);
  if (raw.parameters === undefined && raw.inputSchema !== undefined) return toMatchTool(raw as Parameters<typeof toMatchTool>[0], typeof raw.server === 'string' ? raw.server : '');
  return raw as MatchTool;
}

function toRecord(r: FileRecord, i: number, catalogue: readonly MatchTool[], which: string): EvalRecord | MultiTurnRecord {
  const where = `dataset ${which}, record ${i}`;
  if (r === null || typeof r !== 'object') throw new DatasetError(`${where}: not an object`);
  const id = typeof r.id === 'string' ? r.id : `record-${i}`;
  // `"class": null` (JSON null) is the `null` class too.
  const cls = r.class === null ? 'null' : r.class;
  if (!CLASSES.includes(cls as MatchClass)) throw new DatasetError(`${where}: class must be correct, wrong or null`);
  const name = r.tool?.name;
  const server = r.tool?.server;
  if (typeof name !== 'string' || (server !== undefined && typeof server !== 'string')) throw new DatasetError(`${where}: tool.name must be a string`);
  const tool = catalogue.find((t) => t.name === name && (server === undefined || t.server === server)) ?? { name, server };
  const base: EvalRecord = { id, task: typeof r.task === 'string' ? r.task : '', tool, class: cls as MatchClass, split: splitOf(id) as Split };
  if (r.conversation === undefined) {
    if (base.task === '') throw new DatasetError(`${where}: needs a task or a conversation`);
    return base;
  }
  if (!Array.isArray(r.conversation)) throw new DatasetError(`${where}: conversation must be an array of messages`);
  return { ...base, conversation: r.conversation as MultiTurnRecord['conversation'], template: r.template === 'accepted' ? 'accepted' : 'stated' };
}
