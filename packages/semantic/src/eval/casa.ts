import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { MatchTool } from '../matcher/types.ts';

/** The labels of the CASA set: the requested tool fits; the right server but the wrong tool; the wrong server. */
export type MatchClass = 'correct' | 'wrong' | 'null';
export type Split = 'tune' | 'holdout';

export interface EvalRecord {
  id: string;
  task: string;
  tool: MatchTool;
  class: MatchClass;
  split: Split;
}

const DATA = new URL('../../data/', import.meta.url);

/** The three MCP servers of the CASA set, as vendored in data/casa/. */
export const CASA_SERVERS = {
  'github-official': 'github_official_tools.json',
  'nasdaq-data-link': 'nasdaq_data_link_tools.json',
  sonarqube: 'sonarqube_tools.json',
} as const;

/**
 * A fixed split independent of the data's order and of any tuning: a record is in the holdout
 * when the first byte of SHA-256 of its id, mod 10, is below 3 (about 30 %).
 */
export function splitOf(id: string): Split {
  const first = createHash('sha256').update(id).digest()[0] ?? 0;
  return first % 10 < 3 ? 'holdout' : 'tune';
}

interface RawTool {
  name: string;
  description?: string | null;
  inputSchema?: { properties?: Record<string, { description?: string; type?: string | string[] }> | null } | null;
}

/** An MCP tool definition as the matcher sees it. */
export function toMatchTool(raw: RawTool, server: string): MatchTool {
  const parameters: NonNullable<MatchTool['parameters']> = {};
  for (const [name, spec] of Object.entries(raw.inputSchema?.properties ?? {})) {
    parameters[name] = { description: spec.description, type: Array.isArray(spec.type) ? spec.type.join('|') : spec.type };
  }
  return { name: raw.name, description: raw.description ?? undefined, parameters, server };
}

export function loadCasaCatalogue(): MatchTool[] {
  const out: MatchTool[] = [];
  for (const [server, file] of Object.entries(CASA_SERVERS)) {
    const raw = JSON.parse(readFileSync(new URL(`casa/${file}`, DATA), 'utf8')) as RawTool[];
    for (const tool of raw) out.push(toMatchTool(tool, server));
  }
  return out;
}

interface RawRecord {
  input: { task: string; tools: string[]; mcp_servers: string[] };
  match_tag: MatchClass;
}

/** The 200 single-turn CASA records; ids are `casa-000` … `casa-199` in file order. */
export function loadCasaSingleTurn(catalogue: readonly MatchTool[] = loadCasaCatalogue()): EvalRecord[] {
  const raw = JSON.parse(readFileSync(new URL('casa/test_data.json', DATA), 'utf8')) as RawRecord[];
  return raw.map((r, i) => {
    const id = `casa-${String(i).padStart(3, '0')}`;
    const server = r.input.mcp_servers[0] ?? '';
    const name = r.input.tools[0] ?? '';
    const tool = catalogue.find((t) => t.server === server && t.name === name) ?? { name, server };
    return { id, task: r.input.task, tool, class: r.match_tag, split: splitOf(id) };
  });
}
