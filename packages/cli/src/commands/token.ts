import type { Command } from 'commander';
import type { CommandContext } from '../command-context.ts';
import { registerTokenInspect } from './token-inspect.ts';

export function registerTokenCommands(program: Command, ctx: CommandContext): void {
  const token = program.command('token').description('Inspect approval tokens.');
  registerTokenInspect(token, ctx);
}
