import type { PasskeyCredential } from '@countersign/core/passkey';
import type { Command } from 'commander';
import { EXIT_OK } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { withStore } from '../open-store-for-cli.ts';
import { addStoreOptions, type StoreFlags, storeTargetFrom } from '../store-flags.ts';

/** `countersign auth passkeys`: who has registered which passkeys (no key material is printed). */
export function registerAuthPasskeys(auth: Command, ctx: CommandContext): void {
  addStoreOptions(
    auth
      .command('passkeys')
      .description("List approvers' registered passkeys in a store (default: the SQLite database): label, credential id, when added, last used, removed.")
      .option('--approver <id>', 'only this approver')
      .option('--json', 'machine-readable output'),
  ).action(async (flags: StoreFlags & { approver?: string; json?: true }) => {
    const target = storeTargetFrom(ctx, flags, { mustExist: true });
    const credentials = await withStore(target, (store) => store.passkeys.list(flags.approver), { readOnly: true });
    ctx.setExitCode(print(ctx, credentials, flags.json === true));
  });
}

function print(ctx: CommandContext, credentials: readonly PasskeyCredential[], json: boolean): number {
  const out = ctx.io.stdout;
  const view = credentials.map(({ publicKey: _key, ...rest }) => rest);
  if (json) {
    writeJson(out, { passkeys: view });
    return EXIT_OK;
  }
  if (credentials.length === 0) {
    writeLine(out, 'no passkeys registered');
    return EXIT_OK;
  }
  const byApprover = Map.groupBy(credentials, (c) => c.approver);
  for (const [approver, list] of byApprover) {
    const active = list.filter((c) => c.removedAt === undefined).length;
    writeLine(out, `${approver}: ${active} passkey${active === 1 ? '' : 's'}${list.length > active ? ` (${list.length - active} removed)` : ''}`);
    for (const c of list) {
      const when = [`added ${new Date(c.createdAt).toISOString()}`];
      if (c.lastUsedAt !== undefined) when.push(`last used ${new Date(c.lastUsedAt).toISOString()}`);
      if (c.removedAt !== undefined) when.push(`REMOVED ${new Date(c.removedAt).toISOString()}`);
      writeLine(out, `  ${c.label} (${c.credentialId}) ${when.join(', ')}`);
    }
  }
  return EXIT_OK;
}
