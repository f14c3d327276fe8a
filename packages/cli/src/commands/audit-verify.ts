import { readFile } from 'node:fs/promises';
import {
  type AuditHead,
  type AuditRecord,
  type ChainVerification,
  ChainVerifier,
  type CheckpointSummary,
  DEFAULT_CHECKPOINT_EVERY_MS,
  DEFAULT_CHECKPOINT_EVERY_RECORDS,
  DEFAULT_MAX_UNSIGNED_TAIL,
  parseJsonl,
} from '@countersign/core/audit';
import { checkDecisionEvidence } from '@countersign/core/gate';
import { checkPasskeyEvidence, type PasskeyCredential, type PasskeyEvidenceProblem, type PasskeyEvidenceReport } from '@countersign/core/passkey';
import type { Command } from 'commander';
import { publicKeyId } from '@countersign/server';
import { offlineAssertionCheck } from '@countersign/server';
import { passkeyLedgerProblems } from '../passkey-ledger-check.ts';
import { CliError, EXIT_NOT_YET, EXIT_OK, EXIT_REJECTED } from '../cli-error.ts';
import { writeJson, writeLine } from '../cli-io.ts';
import type { CommandContext } from '../command-context.ts';
import { withStore } from '../open-store-for-cli.ts';
import { verifyingKeys, type VerifyingKeys } from '../inspect-keyring.ts';
import { formatAnchor, parseAnchor } from '../parse-anchor.ts';
import { parseIntegerFlag } from '../parse-number.ts';
import { readAuditPages } from '../read-audit-pages.ts';
import { describeStoreTarget } from '../serve/store-target.ts';
import { addStoreOptions, type StoreFlags, storeTargetFrom } from '../store-flags.ts';

interface VerifyFlags extends StoreFlags {
  file?: string;
  anchor?: string;
  keyFile?: string;
  keyId?: string;
  maxUnsignedTail?: string;
  json?: true;
}

/** What was checked of the signed decision records: how many, with which keys; or why not. */
type DecisionsChecked = { checked: number; keys: string } | { checked: null; why: string };
/**
 * Passkey evidence (needs no server key): assertions re-verified against public keys from
 * the chain's passkey_registered records; registrations and removals; and, for a store,
 * how many passkey table rows were found to match the chain (null for an export).
 */
type PasskeysChecked = Omit<PasskeyEvidenceReport, 'problems'> & { tableRows: number | null };
/** What the signed checkpoints cover, with which keys; or why they were not checked. */
type CheckpointsChecked = (CheckpointSummary & { checked: number; keys: string }) | { checked: null; why: string };

/** Where the chain broke; `line` is set for files. */
type VerifyReport =
  | {
      ok: true;
      source: string;
      count: number;
      head: AuditHead | undefined;
      checkpoints: CheckpointsChecked;
      decisions: DecisionsChecked;
      passkeys: PasskeysChecked;
    }
  | {
      ok: false;
      source: string;
      seq: number | undefined;
      line: number | undefined;
      reason: string;
      message: string;
      /** For `passkey_evidence`: every problem found (planted table rows carry a credential id, no seq). */
      problems?: PasskeyEvidenceProblem[] | undefined;
      /**
       * For `no_checkpoint` on a chain younger than the service's checkpoint interval: when the
       * first checkpoint is due (ISO). Not broken yet, but not proven either: exit 3, not 0.
       */
      checkpointDue?: string | undefined;
    };

/** Filled in by withPasskeys. */
const NOT_YET: PasskeysChecked = { verified: 0, unnamedApprover: 0, registered: 0, firstRegistrations: 0, removed: 0, operatorRemovals: 0, reRegistrations: [], tableRows: null };
const NO_KEY = 'no key: pass --key-file, or set COUNTERSIGN_MASTER_SECRET, or keep master.key next to the SQLite database';

export function registerAuditVerify(audit: Command, ctx: CommandContext): void {
  addStoreOptions(
    audit
      .command('verify')
      .description('Check the audit hash chain of a store (default: the SQLite database) or of a JSON-lines export (--file).'),
  )
    .option('--file <path>', 'verify a JSON-lines export instead of a store')
    .option('--anchor <seq:hash>', 'a head from an earlier verify/export: the record at that seq must still have that hash; detects records dropped from the end')
    .option('--key-file <path>', 'verify signatures with this key: the master.key `serve` writes (or any file holding the master secret), or an Ed25519 public key (PEM)')
    .option('--key-id <kid>', 'key id of --key-file (env COUNTERSIGN_KEY_ID, default k1)')
    .option('--max-unsigned-tail <n>', `records allowed after the last signed checkpoint (default ${DEFAULT_MAX_UNSIGNED_TAIL})`)
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      '\nWithout a key only the hash chain is checked: that proves the records agree with each other, not that\n' +
        'nobody with write access to the store rewrote them and recomputed the hashes.\n' +
        'With a key (--key-file, COUNTERSIGN_MASTER_SECRET, or master.key next to the SQLite database) the signed\n' +
        'checkpoints must verify and match the chain, the chain must hold at least one, and at most\n' +
        '--max-unsigned-tail records may follow the last one; each signed decision record must verify and name\n' +
        "exactly its audit record's call and approver. Records after the last checkpoint are protected only by\n" +
        '--anchor, kept somewhere the store\'s writers cannot reach.\n' +
        'Always (no key needed): every passkey assertion is verified again against the public key of a\n' +
        'passkey_registered record in the chain (never the passkey table): registered by the approver who decided,\n' +
        'before the decision, not removed before it; over the claims rebuilt from the records, claim by claim (an\n' +
        "edit's signature counts only on a record of that edit, naming its edited call). A decision on a\n" +
        'request opened under a `passkey: required` rule without a valid assertion fails the check, signed decision\n' +
        'record or not. Registrations and removals must carry a step-up by an earlier key of the same approver\n' +
        "(an approver's first passkey and an operator's removal carry none; they are counted). For a store, every\n" +
        'passkey table row must match the chain: a row the chain never registered (a planted key), with another\n' +
        'public key, or missing, fails, as does a table that cannot be read, or a ledger copy of a passkey decision\n' +
        "that is not the chain's. A public key registered twice fails. The chain is trusted up to its head:\n" +
        '--anchor and signed checkpoints are what detect a rewritten chain, with its registrations.\n' +
        'Exit status: 0 the chain (and the signatures) hold, 1 broken, 2 usage or I/O error, 3 no checkpoint yet\n' +
        '(a chain younger than the 30 s checkpoint interval: run it again after the time it names).',
    )
    .action(async (flags: VerifyFlags) => {
      ctx.setExitCode(await verifyAudit(ctx, flags));
    });
}

async function verifyAudit(ctx: CommandContext, flags: VerifyFlags): Promise<number> {
  const anchor = flags.anchor === undefined ? undefined : parseAnchor(flags.anchor);
  const maxUnsignedTail =
    flags.maxUnsignedTail === undefined ? undefined : parseIntegerFlag('--max-unsigned-tail', flags.maxUnsignedTail, 0, Number.MAX_SAFE_INTEGER);
  const opts = { anchor, maxUnsignedTail };
  const report = flags.file === undefined ? await verifyStore(ctx, flags, opts) : await verifyFile(ctx, flags, flags.file, opts);
  print(ctx, report, flags.json === true);
  if (report.ok) return EXIT_OK;
  return report.checkpointDue === undefined ? EXIT_REJECTED : EXIT_NOT_YET;
}

/** Slack for a service that signs a little after its interval (a busy event loop, a slow store). */
const CHECKPOINT_GRACE_MS = 5_000;

/**
 * A chain without any checkpoint is expected in the first half minute of a new store: the
 * service signs its first one DEFAULT_CHECKPOINT_EVERY_MS after records start arriving. Only
 * then is `no_checkpoint` "not yet" rather than broken; a stripped older chain stays broken.
 */
function notYetCheckpointed(report: VerifyReport, records: { first: AuditRecord | undefined; count: number }, now: number): VerifyReport {
  if (report.ok || report.reason !== 'no_checkpoint' || records.first === undefined) return report;
  if (records.count > DEFAULT_CHECKPOINT_EVERY_RECORDS) return report;
  const due = records.first.at + DEFAULT_CHECKPOINT_EVERY_MS;
  if (now > due + CHECKPOINT_GRACE_MS) return report;
  return { ...report, checkpointDue: new Date(due).toISOString() };
}

interface CheckOptions {
  anchor: AuditHead | undefined;
  maxUnsignedTail: number | undefined;
}

function verifierFor(opts: CheckOptions, keys: VerifyingKeys | undefined): ChainVerifier {
  return new ChainVerifier({
    anchor: opts.anchor,
    checkpoints: keys === undefined ? undefined : { keyring: keys.keyring, maxUnsignedTail: opts.maxUnsignedTail },
  });
}

async function verifyFile(ctx: CommandContext, flags: VerifyFlags, file: string, opts: CheckOptions): Promise<VerifyReport> {
  if (flags.db !== undefined || flags.databaseUrl !== undefined) {
    throw new CliError('usage', 'give either --file or a store (--db / --database-url), not both');
  }
  let text: string;
  try {
    text = await readFile(ctx.resolvePath(file), 'utf8');
  } catch (error) {
    throw new CliError('io', `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const keys = await verifyingKeys(ctx, { keyFile: flags.keyFile, kid: keyId(ctx, flags), store: undefined });
  const parsed = parseJsonl(text);
  if (!parsed.ok) {
    return { ok: false, source: file, seq: seqOnLine(text, parsed.line), line: parsed.line, reason: parsed.reason, message: parsed.message };
  }
  const verifier = verifierFor(opts, keys);
  for (const record of parsed.records) if (verifier.push(record) !== undefined) break;
  const report = toReport(file, verifier.finish(), true, decisionsOf(parsed.records), keys);
  const young = notYetCheckpointed(report, { first: parsed.records[0], count: parsed.records.length }, Date.now());
  return withPasskeys(young, parsed.records, undefined);
}

async function verifyStore(ctx: CommandContext, flags: VerifyFlags, opts: CheckOptions): Promise<VerifyReport> {
  const target = storeTargetFrom(ctx, flags, { mustExist: true });
  const source = describeStoreTarget(target);
  const keys = await verifyingKeys(ctx, { keyFile: flags.keyFile, kid: keyId(ctx, flags), store: target });
  const decisions: AuditRecord[] = [];
  // What the passkey check reads: the requests' rules, passkey registrations and removals, the decisions.
  const passkeyRecords: AuditRecord[] = [];
  let table: PasskeyTable = { ok: true, rows: [] };
  let ledgerProblems: PasskeyEvidenceProblem[] = [];
  const seen: { first: AuditRecord | undefined; count: number } = { first: undefined, count: 0 };
  // Read-only: verifying must never create a schema or database, nor migrate one.
  const verdict = await withStore(
    target,
    async (store) => {
      table = await passkeyTable(store.passkeys);
      const verifier = verifierFor(opts, keys);
      for await (const page of readAuditPages(store.audit)) {
        for (const record of page) {
          seen.first ??= record;
          seen.count += 1;
          if (verifier.push(record) !== undefined) return verifier.finish();
          if (record.type === 'decision') decisions.push(record);
          if (isPasskeyEvidence(record)) passkeyRecords.push(record);
        }
      }
      ledgerProblems = await passkeyLedgerProblems(store.ledger, passkeyRecords);
      return verifier.finish();
    },
    { readOnly: true },
  );
  const report = notYetCheckpointed(toReport(source, verdict, false, decisions, keys), seen, Date.now());
  return withPasskeys(report, passkeyRecords, table, ledgerProblems);
}

const PASSKEY_EVIDENCE_TYPES: ReadonlySet<string> = new Set(['decision', 'approval_requested', 'passkey_registered', 'passkey_removed']);

/**
 * What the passkey check reads: those records, the proposals an edit made (an edit's
 * signature names their arguments), and the proposals that opened their request (format 2).
 */
function isPasskeyEvidence(record: AuditRecord): boolean {
  return PASSKEY_EVIDENCE_TYPES.has(record.type) || (record.type === 'proposal' && (record.detail?.editedFrom !== undefined || record.requestId !== undefined));
}

type PasskeyTable = { ok: true; rows: PasskeyCredential[] } | { ok: false; reason: string };

/**
 * Every row of the passkey table, removed ones included. A table that cannot be read is a
 * failure with its reason, never an empty table (which would skip the comparison).
 */
async function passkeyTable(store: { list(): Promise<PasskeyCredential[]> }): Promise<PasskeyTable> {
  try {
    return { ok: true, rows: await store.list() };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // A store from before passkeys existed has no table: compared as an empty one (every key the chain registered is then reported missing).
    return NO_TABLE.test(reason) ? { ok: true, rows: [] } : { ok: false, reason };
  }
}

const NO_TABLE = /no such table: passkey_credentials|relation "[^"]*passkey_credentials" does not exist/;

/**
 * Adds the passkey check to a report whose chain held: each assertion verifies under a
 * key the chain registered for that approver before the decision, and no decision under a
 * passkey rule lacks one. A decision the server's keys alone made (no approver device), or
 * signed with a key planted in the passkey table, fails here even when everything else
 * holds. `table` undefined: an export, which has no passkey table.
 */
async function withPasskeys(
  report: VerifyReport,
  records: readonly AuditRecord[],
  read: PasskeyTable | undefined,
  ledgerProblems: readonly PasskeyEvidenceProblem[] = [],
): Promise<VerifyReport> {
  if (!report.ok) return report;
  if (read?.ok === false) {
    const message = `passkey_table_unreadable: the passkey table could not be read, so it was not compared with the chain: ${read.reason}`;
    return { ok: false, source: report.source, seq: undefined, line: undefined, reason: 'passkey_evidence', message, problems: [{ reason: message }] };
  }
  const table = read?.rows;
  const checked = await checkPasskeyEvidence(records, offlineAssertionCheck, { table, publicKeyId });
  const problems = [...checked.problems, ...ledgerProblems];
  const problem = problems[0];
  if (problem !== undefined) {
    return { ok: false, source: report.source, seq: problem.seq, line: undefined, reason: 'passkey_evidence', message: problem.reason, problems };
  }
  const { verified, unnamedApprover, registered, firstRegistrations, removed, operatorRemovals, reRegistrations } = checked;
  return { ...report, passkeys: { verified, unnamedApprover, registered, firstRegistrations, removed, operatorRemovals, reRegistrations, tableRows: table === undefined ? null : table.length } };
}

function keyId(ctx: CommandContext, flags: VerifyFlags): string {
  return flags.keyId ?? (ctx.io.env.COUNTERSIGN_KEY_ID || 'k1');
}

function decisionsOf(records: readonly AuditRecord[]): AuditRecord[] {
  return records.filter((r) => r.type === 'decision');
}

function toReport(
  source: string,
  verdict: ChainVerification,
  fromFile: boolean,
  decisions: readonly AuditRecord[],
  keys: VerifyingKeys | undefined,
): VerifyReport {
  if (verdict.ok) {
    if (keys === undefined) {
      const why = { checked: null, why: NO_KEY };
      return { ok: true, source, count: verdict.count, head: verdict.head, checkpoints: why, decisions: why, passkeys: NOT_YET };
    }
    // The chain proves nothing was edited after the fact; the signatures prove each
    // decision came from the service holding the key, about exactly this call.
    const problem = checkDecisionEvidence(decisions, keys.keyring)[0];
    if (problem !== undefined) {
      return { ok: false, source, seq: problem.seq, line: undefined, reason: 'decision_evidence', message: problem.reason };
    }
    const summary = verdict.checkpoints ?? { count: 0, signedSeq: 0, unsignedTail: 0 };
    return {
      ok: true,
      source,
      count: verdict.count,
      head: verdict.head,
      checkpoints: { ...summary, checked: summary.count, keys: keys.source },
      decisions: { checked: decisions.length, keys: keys.source },
      passkeys: NOT_YET,
    };
  }
  return {
    ok: false,
    source,
    seq: verdict.seq,
    // Line n of an export holds the record at index n - 1; `truncated` points past the end.
    line: fromFile && verdict.reason !== 'truncated' ? verdict.index + 1 : undefined,
    reason: verdict.reason,
    message: verdict.message,
  };
}

/** The seq a malformed line claims, when it is readable at all: helps find it in the store. */
function seqOnLine(text: string, line: number): number | undefined {
  try {
    const seq: unknown = JSON.parse(text.split('\n')[line - 1] ?? '').seq;
    return Number.isSafeInteger(seq) ? (seq as number) : undefined;
  } catch {
    return undefined;
  }
}

function print(ctx: CommandContext, report: VerifyReport, json: boolean): void {
  const out = ctx.io.stdout;
  if (json) {
    writeJson(out, report.ok ? { ...report, head: report.head ?? null } : report);
    return;
  }
  if (report.ok) {
    if (report.head === undefined) {
      writeLine(out, `audit chain ok: ${report.source} is empty`);
      return;
    }
    writeLine(out, `audit chain ok: ${report.count} record${report.count === 1 ? '' : 's'} in ${report.source}`);
    writeLine(out, `head: ${formatAnchor(report.head)}`);
    const cp = report.checkpoints;
    if (cp.checked === null) {
      writeLine(out, `signed checkpoints: not checked (${cp.why})`);
      writeLine(out, 'WARNING: without a key this proves only that the records agree with each other, not that nobody rewrote them');
    } else {
      writeLine(
        out,
        `signed checkpoints: ${cp.checked} verified (keys: ${cp.keys}); records up to seq ${cp.signedSeq} are signed, ` +
          `${cp.unsignedTail} after the last checkpoint are not`,
      );
    }
    writeLine(
      out,
      report.decisions.checked === null
        ? `signed decision records: not checked (${report.decisions.why})`
        : `signed decision records: ${report.decisions.checked} verified (keys: ${report.decisions.keys})`,
    );
    const pk = report.passkeys;
    writeLine(out, `passkey assertions: ${pk.verified} verified against public keys registered in the chain; no decision under a passkey rule lacks one`);
    writeLine(
      out,
      `passkey registrations: ${pk.registered} (${pk.firstRegistrations} an approver's first, on sign-in alone), removals: ${pk.removed} (${pk.operatorRemovals} by an operator); ` +
        (pk.tableRows === null ? 'passkey table: not checked (an export has none)' : `passkey table: ${pk.tableRows} row${pk.tableRows === 1 ? '' : 's'}, matching the chain; ledger copies of passkey decisions match`),
    );
    for (const again of pk.reRegistrations) {
      writeLine(out, `NOTE: seq ${again.seq}: ${again.approver} registered ${again.credentialId} on sign-in alone after losing all earlier passkeys: confirm it with them`);
    }
    if (pk.registered > 0) writeLine(out, '(the keys come from the chain: --anchor and signed checkpoints are what show it was not rewritten)');
    writeLine(out, '(keep the head somewhere safe and pass it as --anchor next time to detect records dropped from the end)');
    return;
  }
  if (report.checkpointDue !== undefined) {
    writeLine(out, `audit chain of ${report.source}: no checkpoint yet: the service signs one within 30 s (due ${report.checkpointDue})`);
    writeLine(out, '  the records agree with each other; run it again after that time to check them against the signed checkpoint');
    return;
  }
  const where = [
    report.seq === undefined ? undefined : `seq ${report.seq}`,
    report.line === undefined ? undefined : `line ${report.line}`,
  ].filter((part) => part !== undefined);
  writeLine(out, `audit chain BROKEN in ${report.source}${where.length > 0 ? ` at ${where.join(', ')}` : ''}: ${report.reason}`);
  writeLine(out, `  ${report.message}`);
  for (const problem of (report.problems ?? []).slice(1)) writeLine(out, `  ${problem.seq === undefined ? '' : `seq ${problem.seq}: `}${problem.reason}`);
}
