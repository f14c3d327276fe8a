import type { Command } from 'commander';
import type { CommandContext } from '../command-context.ts';
import { registerAuditExport } from './audit-export.ts';
import { registerAuditVerify } from './audit-verify.ts';

export function registerAuditCommands(program: Command, ctx: CommandContext): void {
  const audit = program.command('audit').description('Verify and export the hash-chained audit log.');
  registerAuditVerify(audit, ctx);
  registerAuditExport(audit, ctx);
}
