import { systemClock } from '@countersign/core';
import { type PasskeyCredential, removePasskeyAsOperator } from '@countersign/core/passkey';
import type { Command } from 'commander';
import { EXIT_OK, EXIT_REJECTED } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { withStore } from '../open-store-for-cli.ts';
import { addStoreOptions, type StoreFlags, storeTargetFrom } from '../store-flags.ts';

type PasskeysFlags = StoreFlags & { approver?: string; remove?: string; json?: true };

/**
 * `countersign auth passkeys`: who has registered which passkeys (no key material is
 * printed). `--remove <credentialId>`: lost-device recovery, an operator's removal
 * straight in the store, audited as `passkey_removed` with actor `operator`.
 */
export function registerAuthPasskeys(auth: Command, ctx: CommandContext): void {
  addStoreOptions(
    auth
      .command('passkeys')
      .description("List approvers' registered passkeys in a store (default: the SQLite database): label, credential id, when added, last used, removed.")
      .option('--approver <id>', 'only this approver')
      .option('--remove <credentialId>', 'remove this passkey as an operator (lost device); audited as passkey_removed by operator')
      .option('--json', 'machine-readable output')
      .addHelpText(
        'after',
        '\nApprovers remove their own passkeys on the Passkeys page, confirming with one of them. --remove is for an\n' +
          'approver who lost every device: it needs only access to the store, and the approver\'s next passkey is then a\n' +
          '"first" one again, registered on sign-in alone (audited; see README, "Passkey-signed approvals").',
      ),
  ).action(async (flags: PasskeysFlags) => {
    const target = storeTargetFrom(ctx, flags, { mustExist: true });
    if (flags.remove !== undefined) {
      ctx.setExitCode(await removeAsOperator(ctx, target, flags.remove, flags.json === true));
      return;
    }
    const credentials = await withStore(target, (store) => store.passkeys.list(flags.approver), { readOnly: true });
    ctx.setExitCode(print(ctx, credentials, flags.json === true));
  });
}

async function removeAsOperator(ctx: CommandContext, target: ReturnType<typeof storeTargetFrom>, credentialId: string, json: boolean): Promise<number> {
  // The store's own chain: the removal and its record commit together.
  const removed = await withStore(target, (store) => removePasskeyAsOperator({ store: store.passkeys, audit: store.audit }, { credentialId, now: systemClock() }));
  const out = ctx.io.stdout;
  if (json) writeJson(out, removed.ok ? { removed: credentialId, approver: removed.approver } : { error: removed.reason, message: removed.message });
  else writeLine(out, removed.ok ? `removed passkey ${credentialId} of ${removed.approver} (audited as passkey_removed by operator)` : `not removed: ${removed.message}`);
  return removed.ok ? EXIT_OK : EXIT_REJECTED;
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
