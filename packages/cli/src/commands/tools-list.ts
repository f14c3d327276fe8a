import type { ToolPin, ToolRegistration } from '@countersign/core/catalog';
import { displayText } from '@countersign/core/display';
import { findDefinitionReview } from '@countersign/core/gate';
import type { Command } from 'commander';
import { describeStoreTarget } from '../serve/store-target.ts';
import { EXIT_OK } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { withStore } from '../open-store-for-cli.ts';
import { addStoreOptions, type StoreFlags, storeTargetFrom } from '../store-flags.ts';

interface ListFlags extends StoreFlags {
  json?: true;
}

/**
 * One tool as the store knows it. `unpinned`: an agent registered it but no call was
 * proposed yet, so nothing was reviewed (nor trusted).
 */
export interface ToolListing {
  name: string;
  status: ToolPin['status'] | 'unpinned';
  trustedDigest: string | null;
  pendingDigest: string | null;
  /** The agent that registered it; null for a tool pinned by an operator and never registered. */
  registeredBy: string | null;
  /** The definition the agent registered last. */
  registeredDigest: string | null;
  /** The review request a person decides (`changed` only), when it was opened. */
  reviewRequestId: string | null;
}

export function registerToolsList(tools: Command, ctx: CommandContext): void {
  addStoreOptions(tools.command('list').description('List pinned and registered tools: status, trusted and pending definition digests, who registered each.'))
    .option('--json', 'machine-readable output (full digests)')
    .addHelpText(
      'after',
      '\nStatus: trusted (calls run under the trusted digest), changed (another definition waits for review;\n' +
        'nothing runs), disabled (a reviewer refused it; nothing runs until `countersign tools pin`), unpinned\n' +
        '(registered, not reviewed yet). Read-only: never creates or migrates a store.\n' +
        'Exit status: 0 listed, 2 usage or I/O error.',
    )
    .action(async (flags: ListFlags) => {
      ctx.setExitCode(await listTools(ctx, flags));
    });
}

async function listTools(ctx: CommandContext, flags: ListFlags): Promise<number> {
  const target = storeTargetFrom(ctx, flags, { mustExist: true });
  const source = describeStoreTarget(target);
  const listings = await withStore(
    target,
    async (store) => {
      const [pins, registrations] = await Promise.all([store.definitions.listPins(), store.definitions.listRegistrations()]);
      return Promise.all(merge(pins, registrations).map(async ({ name, pin, registration }) => {
        const review = pin?.status === 'changed' ? await findDefinitionReview(store, pin) : undefined;
        return listing(name, pin, registration, review?.requestId);
      }));
    },
    { readOnly: true },
  );
  print(ctx, source, listings, flags.json === true);
  return EXIT_OK;
}

function merge(pins: ToolPin[], registrations: ToolRegistration[]) {
  const byName = new Map<string, { name: string; pin?: ToolPin; registration?: ToolRegistration }>();
  for (const pin of pins) byName.set(pin.toolName, { name: pin.toolName, pin });
  for (const registration of registrations) {
    const entry = byName.get(registration.toolName) ?? { name: registration.toolName };
    byName.set(registration.toolName, { ...entry, registration });
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function listing(name: string, pin: ToolPin | undefined, registration: ToolRegistration | undefined, reviewRequestId: string | undefined): ToolListing {
  return {
    name,
    status: pin?.status ?? 'unpinned',
    trustedDigest: pin?.trustedDigest ?? null,
    pendingDigest: pin?.pendingDigest ?? null,
    registeredBy: registration?.agent ?? null,
    registeredDigest: registration?.definitionDigest ?? null,
    reviewRequestId: reviewRequestId ?? null,
  };
}

function print(ctx: CommandContext, source: string, tools: ToolListing[], json: boolean): void {
  const out = ctx.io.stdout;
  if (json) {
    writeJson(out, { ok: true, source, tools });
    return;
  }
  if (tools.length === 0) {
    writeLine(out, `no tools pinned or registered in ${source}`);
    return;
  }
  writeLine(out, `${tools.length} tool${tools.length === 1 ? '' : 's'} in ${source}:`);
  const short = (digest: string | null) => (digest === null ? '-' : digest.slice(0, 12));
  const rows = [
    ['TOOL', 'STATUS', 'TRUSTED', 'PENDING', 'REGISTERED BY', 'REVIEW'],
    // Names come from agents: shown escaped, never as raw control characters.
    ...tools.map((t) => [displayText(t.name), t.status, short(t.trustedDigest), short(t.pendingDigest), t.registeredBy === null ? '-' : displayText(t.registeredBy), t.reviewRequestId ?? '-']),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) writeLine(out, `  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`.trimEnd());
}
