import { randomBytes } from 'node:crypto';
import { generateEd25519Key, MIN_SECRET_BYTES } from '@countersign/core/token';
import { type Command, Option } from 'commander';
import { EXIT_OK } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';

interface KeygenFlags {
  format: 'hex' | 'base64url';
  ed25519?: true;
  json?: true;
}

export function registerKeygen(program: Command, ctx: CommandContext): void {
  program
    .command('keygen')
    .description(
      `Print a new random ${MIN_SECRET_BYTES}-byte master secret for COUNTERSIGN_MASTER_SECRET, or an Ed25519 key pair (PEM) with --ed25519.`,
    )
    .addOption(new Option('--format <format>', 'encoding of the master secret').choices(['hex', 'base64url']).default('hex'))
    .option('--ed25519', 'print an Ed25519 private and public key (PEM) instead of a master secret')
    .option('--json', 'machine-readable output')
    .addHelpText('after', '\nExample:\n  export COUNTERSIGN_MASTER_SECRET="$(countersign keygen)"')
    .action((flags: KeygenFlags) => {
      ctx.setExitCode(keygen(ctx, flags));
    });
}

function keygen(ctx: CommandContext, flags: KeygenFlags): number {
  const out = ctx.io.stdout;
  if (flags.ed25519) {
    const key = generateEd25519Key('generated');
    const privateKeyPem = key.privateKey!.export({ type: 'pkcs8', format: 'pem' }).toString();
    const publicKeyPem = key.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    if (flags.json) writeJson(out, { algorithm: 'EdDSA', privateKeyPem, publicKeyPem });
    else out.write(`${privateKeyPem}${publicKeyPem}`);
    return EXIT_OK;
  }
  const secret = randomBytes(MIN_SECRET_BYTES).toString(flags.format);
  if (flags.json) writeJson(out, { secret, format: flags.format, bytes: MIN_SECRET_BYTES });
  else writeLine(out, secret);
  return EXIT_OK;
}
