import { displayText, inspectForDisplay } from '@countersign/core/display';
import { type DecodedToken, decodeApprovalToken } from '@countersign/core/token';
import type { Command } from 'commander';
import type { StoreTarget } from '../serve/store-target.ts';
import { describeStoreTarget } from '../serve/store-target.ts';
import { checkTokenAgainstClaims, checkTokenAgainstLedger, type TokenCheck } from '../check-token.ts';
import { CliError, EXIT_OK, EXIT_REJECTED } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { describeTime, parseTime } from '../format-time.ts';
import { verifyingKeys } from '../inspect-keyring.ts';
import { withStore } from '../open-store-for-cli.ts';
import { addStoreOptions, type StoreFlags, storeGiven, storeTargetFrom } from '../store-flags.ts';

interface InspectFlags extends StoreFlags {
  publicKey?: string;
  kid?: string;
  at?: string;
  json?: true;
}

type Verification = TokenCheck | { checked: 'none'; ok: false; reason: 'unverified'; message: string };

export function registerTokenInspect(token: Command, ctx: CommandContext): void {
  addStoreOptions(
    token
      .command('inspect')
      .description(
        'Decode an approval token and, when a key is available, verify it: against the recorded call when a store is given, otherwise against its own claims.',
      )
      .argument('<token>', 'the token, or - to read it from stdin'),
  )
    .option('--public-key <file>', 'Ed25519 public key (PEM) to verify with, instead of COUNTERSIGN_MASTER_SECRET')
    .option('--kid <id>', 'key id of --public-key (default: the kid in the token header)')
    .option('--at <time>', 'check as of this time (ISO 8601 or epoch milliseconds) instead of now')
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      `
Keys: --public-key, else COUNTERSIGN_MASTER_SECRET, else the master.key next to the SQLite database.
Exit status: 0 the token verifies, 1 it is rejected or could not be verified (no key), 2 usage or I/O error.`,
    )
    .action(async (text: string, flags: InspectFlags) => {
      ctx.setExitCode(await inspect(ctx, text, flags));
    });
}

async function inspect(ctx: CommandContext, argument: string, flags: InspectFlags): Promise<number> {
  const now = flags.at === undefined ? Date.now() : parseTime(flags.at);
  if (now === undefined) throw new CliError('usage', '--at must be an ISO 8601 time or epoch milliseconds');
  const token = argument === '-' ? await readStdin(ctx) : argument.trim();
  const decoded = decodeApprovalToken(token);
  if (!decoded.ok) {
    const verification: Verification =
      decoded.reason === 'missing'
        ? { checked: 'none', ok: false, reason: 'unverified', message: decoded.message }
        : { checked: 'claims', ok: false, reason: decoded.reason, message: decoded.message };
    print(ctx, flags, undefined, verification, now);
    return EXIT_REJECTED;
  }
  const store = storeGiven(ctx, flags) ? storeTargetFrom(ctx, flags, { mustExist: true }) : undefined;
  const keys = await verifyingKeys(ctx, { publicKey: flags.publicKey, kid: flags.kid ?? decoded.token.header.kid, store });
  const verification = await verify(token, decoded.token, keys, store, now);
  print(ctx, flags, decoded.token, verification, now, keys?.source, store);
  return verification.ok ? EXIT_OK : EXIT_REJECTED;
}

async function verify(
  token: string,
  decoded: DecodedToken,
  keys: Awaited<ReturnType<typeof verifyingKeys>>,
  store: StoreTarget | undefined,
  now: number,
): Promise<Verification> {
  if (keys === undefined) {
    return {
      checked: 'none',
      ok: false,
      reason: 'unverified',
      message: 'NOT verified: no key (set COUNTERSIGN_MASTER_SECRET, pass --public-key, or --db with its master.key)',
    };
  }
  if (store === undefined) return checkTokenAgainstClaims(token, decoded.claims, keys.keyring, now);
  return withStore(store, (opened) => checkTokenAgainstLedger(token, decoded.claims, opened.ledger, keys.keyring, now));
}

async function readStdin(ctx: CommandContext): Promise<string> {
  const stdin = ctx.io.stdin;
  if (stdin === undefined) throw new CliError('usage', 'no stdin to read the token from');
  let text = '';
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    // A token is at most 8 KiB; stop reading a runaway stream early.
    if (text.length > 64 * 1024) break;
  }
  return text.trim();
}

function print(
  ctx: CommandContext,
  flags: InspectFlags,
  decoded: DecodedToken | undefined,
  verification: Verification,
  now: number,
  keySource?: string,
  store?: StoreTarget,
): void {
  const out = ctx.io.stdout;
  if (flags.json) {
    writeJson(out, {
      ok: verification.ok,
      header: decoded?.header ?? null,
      claims: decoded?.claims ?? null,
      // What in the claims would not read as what it is, by pointer into `claims`.
      display: decoded === undefined ? null : inspectForDisplay(decoded.claims),
      times: decoded === undefined ? null : { issuedAt: iso(decoded.claims.iat), expiresAt: iso(decoded.claims.exp), checkedAt: iso(now / 1000) },
      verification: { ...verification, key: keySource ?? null, store: store === undefined ? null : describeStoreTarget(store) },
    });
    return;
  }
  if (decoded !== undefined) {
    const { header, claims } = decoded;
    writeLine(out, `header     alg ${header.alg}, kid ${header.kid}, typ ${header.typ}`);
    const rows: [string, string][] = [
      ['run', claims.run],
      ['session', claims.sid],
      ['call', claims.call],
      ['tool', claims.tool],
      ['definition', claims.def ?? '(none pinned)'],
      ['args', `sha256 ${claims.args}`],
      ['principal', claims.sub],
      ['approvers', claims.apr.join(', ')],
      ['request', claims.req],
      ['token id', claims.jti],
      ['issued', describeTime(claims.iat * 1000, now)],
      ['expires', describeTime(claims.exp * 1000, now)],
      ['format', `v${claims.v}, ${claims.canon}`],
    ];
    // Claims are shown with hidden characters as escapes: a terminal would otherwise reorder or hide them.
    for (const [name, value] of rows) writeLine(out, `${name.padEnd(10)} ${displayText(value)}`);
    const { findings, truncated } = inspectForDisplay(claims);
    for (const f of findings) writeLine(out, `warning    ${displayText(f.pointer)}${f.where === 'key' ? ' (key)' : ''}: ${f.kind}: ${f.detail}`);
    if (truncated) writeLine(out, 'warning    ... and more');
  }
  const against =
    decoded === undefined
      ? ''
      : verification.checked === 'ledger' && store !== undefined
      ? `against the ledger (${describeStoreTarget(store)})`
      : verification.checked === 'claims'
        ? 'against its own claims'
        : '';
  const via = keySource === undefined ? '' : ` with ${keySource}`;
  if (verification.ok) writeLine(out, `ok: ${verification.message} [checked ${against}${via}]`);
  else if (verification.checked === 'none') writeLine(out, verification.message);
  else writeLine(out, `rejected: ${verification.reason}: ${verification.message}${against === '' ? '' : ` [checked ${against}${via}]`}`);
}

function iso(seconds: number): string | null {
  const ms = seconds * 1000;
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null;
}
