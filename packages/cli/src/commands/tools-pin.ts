import { readFile } from 'node:fs/promises';
import { systemClock } from '@countersign/core';
import { parsePinFile } from '@countersign/core/catalog';
import { MemoryGateEvents } from '@countersign/core/events';
import { pinTools, type PinToolsOutcome } from '@countersign/core/gate';
import type { Command } from 'commander';
import { describeStoreTarget } from '../serve/store-target.ts';
import { CliError, EXIT_OK, EXIT_REJECTED } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { withStore } from '../open-store-for-cli.ts';
import { addStoreOptions, type StoreFlags, storeTargetFrom } from '../store-flags.ts';

interface PinFlags extends StoreFlags {
  actor: string;
  json?: true;
}

export function registerToolsPin(tools: Command, ctx: CommandContext): void {
  addStoreOptions(
    tools
      .command('pin')
      .description('Trust the definitions a pin file lists: each tool runs under its listed digest from now on (also re-enables a disabled tool).')
      .argument('<file>', 'pin file (.yaml, .yml or .json): `tools:` mapping each tool name to a digest or to its whole definition'),
  )
    .option('--actor <name>', 'who pins, as recorded in the audit log', 'operator')
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      '\nExample pin file:\n' +
        '  tools:\n' +
        '    transfer: 3f5c…             # a definition digest (`countersign tools list --json` shows them)\n' +
        '    lookup:                     # or the definition itself; its digest is computed\n' +
        '      name: lookup\n' +
        '      description: Looks a customer up.\n' +
        'Each pin is audited as definition_pinned (via pin_file). A running `serve` applies it to the next call.\n' +
        'Exit status: 0 pinned, 1 invalid pin file, 2 usage or I/O error.',
    )
    .action(async (file: string, flags: PinFlags) => {
      ctx.setExitCode(await pin(ctx, file, flags));
    });
}

async function pin(ctx: CommandContext, file: string, flags: PinFlags): Promise<number> {
  if (flags.actor.trim() === '') throw new CliError('usage', '--actor must not be empty');
  const target = storeTargetFrom(ctx, flags, { mustExist: false });
  let text: string;
  try {
    text = await readFile(ctx.resolvePath(file), 'utf8');
  } catch (error) {
    throw new CliError('io', `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const parsed = parsePinFile(text);
  // Checked before the store is opened: a bad file never creates a database.
  if (!parsed.ok) return rejected(ctx, file, parsed.message, flags.json === true);

  const source = describeStoreTarget(target);
  const outcome: PinToolsOutcome = await withStore(target, (store) =>
    // The gate's own operation, on only what it needs: pins, the audit chain, a clock.
    pinTools({ definitions: store.definitions, audit: store.audit, clock: systemClock, events: new MemoryGateEvents() }, parsed.entries, flags.actor),
  );
  if (!outcome.ok) {
    if (outcome.reason === 'invalid_pin_file') return rejected(ctx, file, outcome.message, flags.json === true);
    throw new CliError('io', `cannot pin in ${source}: ${outcome.message}`);
  }
  const pins = outcome.pins.map((p) => ({ name: p.toolName, trustedDigest: p.trustedDigest }));
  if (flags.json) {
    writeJson(ctx.io.stdout, { ok: true, file, source, pins });
    return EXIT_OK;
  }
  writeLine(ctx.io.stdout, `pinned ${pins.length} tool${pins.length === 1 ? '' : 's'} in ${source}:`);
  for (const p of pins) writeLine(ctx.io.stdout, `  ${p.name}  trusted ${p.trustedDigest}`);
  return EXIT_OK;
}

function rejected(ctx: CommandContext, file: string, message: string, json: boolean): number {
  if (json) writeJson(ctx.io.stdout, { ok: false, file, reason: 'invalid_pin_file', message });
  else writeLine(ctx.io.stdout, `${file}: invalid pin file: ${message}`);
  return EXIT_REJECTED;
}
