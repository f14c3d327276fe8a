import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The public surface of each of core's entry points as text: one line per exported name with
 * its kind, sorted. A small equivalent of an API-extractor report, read from the sources with
 * the TypeScript compiler (the package's `countersign-source` condition points at .ts files, so
 * no build is needed to list them).
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

function kindOf(symbol: ts.Symbol): string {
  const flags = symbol.flags;
  if (flags & ts.SymbolFlags.Class) return 'class';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Enum) return 'enum';
  if (flags & ts.SymbolFlags.Variable) return 'const';
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  if (flags & ts.SymbolFlags.Module) return 'namespace';
  return 'other';
}

/** Entry point name → its report text. */
export function apiReports(): Map<string, string> {
  const entries = entryPoints();
  const program = ts.createProgram([...entries.values()], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    strict: true,
    types: ['node'],
    customConditions: ['countersign-source'],
  });
  const checker = program.getTypeChecker();
  const reports = new Map<string, string>();
  for (const [name, file] of entries) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`cannot read the exports of ${file}`);
    const lines = checker.getExportsOfModule(moduleSymbol).map((exported) => {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      return `${kindOf(symbol)} ${exported.name}`;
    });
    reports.set(name, `${lines.sort().join('\n')}\n`);
  }
  return reports;
}
