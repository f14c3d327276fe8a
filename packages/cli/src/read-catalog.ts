import { parseConfigText, readConfigFile } from '@countersign/core/config';
import { CliError } from './cli-error.ts';

/**
 * The tool names of a catalogue file for `policy check --catalog`: a pin file
 * (`tools:` mapping names to digests or definitions), or `tools:` as a list of names
 * or of definitions with a `name`.
 */
export async function readCatalogNames(path: string): Promise<string[]> {
  const file = await readConfigFile(path, 'catalogue');
  if (!file.ok) throw new CliError('io', file.problem);
  const parsed = parseConfigText(file.text, file.format);
  if (!parsed.ok) throw new CliError('usage', `--catalog ${path}: ${parsed.problems.join('; ')}`);
  const tools = (parsed.value as { tools?: unknown } | null)?.tools;
  const names = Array.isArray(tools)
    ? tools.map((entry) => (typeof entry === 'string' ? entry : (entry as { name?: unknown } | null)?.name))
    : typeof tools === 'object' && tools !== null
      ? Object.keys(tools)
      : undefined;
  if (names === undefined || names.some((name) => typeof name !== 'string' || name === '')) {
    throw new CliError('usage', `--catalog ${path}: expected "tools" as a mapping of tool names (a pin file) or a list of names or definitions with a name`);
  }
  return names as string[];
}
