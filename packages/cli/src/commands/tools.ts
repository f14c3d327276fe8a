import type { Command } from 'commander';
import type { CommandContext } from '../command-context.ts';
import { registerToolsList } from './tools-list.ts';
import { registerToolsPin } from './tools-pin.ts';

export function registerToolsCommands(program: Command, ctx: CommandContext): void {
  const tools = program
    .command('tools')
    .description("Show and pin the definitions of tools agents run themselves (a tool runs only under its pinned definition).");
  registerToolsList(tools, ctx);
  registerToolsPin(tools, ctx);
}
