import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { ChainVerifier, exportJsonl } from '@countersign/core/audit';
import type { Command } from 'commander';
import { CliError, EXIT_OK, EXIT_REJECTED } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { withStore } from '../open-store-for-cli.ts';
import { formatAnchor } from '../parse-anchor.ts';
import { readAuditPages } from '../read-audit-pages.ts';
import { addStoreOptions, type StoreFlags, storeTargetFrom } from '../store-flags.ts';
import { writeChunk } from '../write-chunk.ts';

interface ExportFlags extends StoreFlags {
  out?: string;
  json?: true;
}

export function registerAuditExport(audit: Command, ctx: CommandContext): void {
  addStoreOptions(
    audit
      .command('export')
      .description('Write the store\'s audit chain as JSON lines (one record per line) to stdout or --out FILE.'),
  )
    .option('-o, --out <file>', 'write to this file instead of stdout (replaced atomically)')
    .option('--json', 'print the summary on stderr as JSON')
    .addHelpText(
      'after',
      '\nThe chain is verified while it is exported; the summary (count, head) goes to stderr.\nExit status: 0 exported and intact, 1 exported but the chain is broken, 2 usage or I/O error.',
    )
    .action(async (flags: ExportFlags) => {
      ctx.setExitCode(await exportAudit(ctx, flags));
    });
}

async function exportAudit(ctx: CommandContext, flags: ExportFlags): Promise<number> {
  const target = storeTargetFrom(ctx, flags, { mustExist: true });
  const outPath = flags.out === undefined ? undefined : ctx.resolvePath(flags.out);
  // Written next to the destination and renamed at the end, so a failed export never leaves a partial file under the real name.
  const tempPath = outPath === undefined ? undefined : `${outPath}.${process.pid}.tmp`;
  let file: FileHandle | undefined;
  let moved = false;
  try {
    if (tempPath !== undefined) file = await open(tempPath, 'w', 0o600).catch(ioError(`cannot write ${tempPath}`));
    const verdict = await withStore(target, async (store) => {
      const verifier = new ChainVerifier();
      for await (const page of readAuditPages(store.audit)) {
        const text = exportJsonl(page);
        if (file === undefined) await writeChunk(ctx.io.stdout, text);
        else await file.write(text).catch(ioError(`cannot write ${tempPath}`));
        for (const record of page) verifier.push(record);
      }
      return verifier.finish();
    }, { readOnly: true });
    if (file !== undefined && tempPath !== undefined && outPath !== undefined) {
      await file.close();
      file = undefined;
      await rename(tempPath, outPath).catch(ioError(`cannot move the export to ${outPath}`));
      moved = true;
    }
    report(ctx, flags, verdict, outPath);
    return verdict.ok ? EXIT_OK : EXIT_REJECTED;
  } finally {
    await file?.close().catch(() => undefined);
    if (tempPath !== undefined && !moved) await rm(tempPath, { force: true });
  }
}

function report(ctx: CommandContext, flags: ExportFlags, verdict: ReturnType<ChainVerifier['finish']>, outPath: string | undefined): void {
  const err = ctx.io.stderr;
  const destination = outPath ?? 'stdout';
  if (flags.json) {
    writeJson(err, verdict.ok ? { ok: true, out: destination, count: verdict.count, head: verdict.head ?? null } : { out: destination, ...verdict });
    return;
  }
  if (!verdict.ok) {
    writeLine(err, `exported to ${destination}, but the chain is BROKEN at seq ${verdict.seq ?? '?'}: ${verdict.reason}: ${verdict.message}`);
    return;
  }
  const head = verdict.head === undefined ? 'the log is empty' : `head ${formatAnchor(verdict.head)}`;
  writeLine(err, `exported ${verdict.count} record${verdict.count === 1 ? '' : 's'} to ${destination}; chain intact, ${head}`);
}

function ioError(what: string): (error: unknown) => never {
  return (error) => {
    throw new CliError('io', `${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  };
}
