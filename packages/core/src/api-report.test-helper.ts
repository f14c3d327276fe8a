import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API, type Symbol as CompilerSymbol, SymbolFlags } from 'typescript/unstable/sync';

/**
 * The public surface of each of core's entry points as text: one line per exported name with
 * its kind, sorted. A small equivalent of an API-extractor report, read by the repository's
 * compiler from the project core is built from (tsconfig.build.json: the sources that become
 * dist/, tests left out), so no build is needed to list them.
 *
 * TypeScript 7 has no in-process compiler API; its `unstable/sync` API drives the native
 * compiler in a child process. The program and the export lookups run there, which costs a
 * fraction of building the same program with TypeScript 5's JavaScript compiler.
 */
const packageDir = fileURLToPath(new URL('..', import.meta.url));

interface ExportTarget {
  'countersign-source': string;
}

/** Entry point name (`index` for `.`, `testing-children` for `./testing/children`) → its source file. */
export function entryPoints(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(`${packageDir}package.json`, 'utf8')) as { exports: Record<string, ExportTarget> };
  const entries = new Map<string, string>();
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const name = subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-');
    entries.set(name, fileURLToPath(new URL(target['countersign-source'], `file://${packageDir}`)));
  }
  return entries;
}

function kindOf(symbol: CompilerSymbol): string {
  const flags = symbol.flags;
  if (flags & SymbolFlags.Class) return 'class';
  if (flags & SymbolFlags.Function) return 'function';
  if (flags & SymbolFlags.Enum) return 'enum';
  if (flags & SymbolFlags.Variable) return 'const';
  if (flags & SymbolFlags.Interface) return 'interface';
  if (flags & SymbolFlags.TypeAlias) return 'type';
  if (flags & SymbolFlags.Module) return 'namespace';
  return 'other';
}

/** Entry point name → its report text. */
export function apiReports(): Map<string, string> {
  const entries = entryPoints();
  const config = `${packageDir}tsconfig.build.json`;
  const api = new API({ cwd: packageDir });
  try {
    const project = api.updateSnapshot({ openProjects: [config] }).getProject(config);
    if (!project) throw new Error(`the compiler opened no project for ${config}`);
    const reports = new Map<string, string>();
    for (const [name, file] of entries) {
      const source = project.program.getSourceFile(file);
      const moduleSymbol = source && project.checker.getSymbolAtLocation(source);
      if (!moduleSymbol) throw new Error(`cannot read the exports of ${file}`);
      const lines = project.checker.getExportsOfModule(moduleSymbol).map((exported) => {
        const symbol = exported.flags & SymbolFlags.Alias ? project.checker.getAliasedSymbol(exported) : exported;
        return `${kindOf(symbol)} ${exported.name}`;
      });
      reports.set(name, `${lines.sort().join('\n')}\n`);
    }
    return reports;
  } finally {
    api.close();
  }
}
