import type { ToolDefinition, ToolRegistry } from '../gate/index.ts';

/**
 * An in-process gate's registry for tools a framework runs itself: their pinned
 * definitions. The framework runs them (guarded: authorize → run → complete); the
 * gate's own `dispatch` never does, so its `execute` refuses, naming `runsIn`.
 */
export function frameworkToolRegistry(definitions: readonly ToolDefinition[], runsIn: string): ToolRegistry {
  return Object.fromEntries(
    definitions.map((definition) => [
      definition.name,
      {
        definition,
        execute: () => {
          throw new Error(`${definition.name} runs in ${runsIn}, not through gate.dispatch`);
        },
      },
    ]),
  );
}
