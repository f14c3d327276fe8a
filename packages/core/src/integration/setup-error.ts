/**
 * Thrown at run start (before any model call) when an agent would offer the model a
 * tool that no Countersign checkpoint holds: a hosted tool, a tool the framework builds
 * at run time (MCP servers, an unguarded handoff), or a function tool that was not
 * wrapped. Deny by default: such a tool is refused, never run unchecked.
 */
export class CountersignUnguardedTool extends Error {
  readonly code = 'unguarded_tool' as const;
  readonly toolName: string;
  /** The framework's kind of tool (`function`, `hosted_tool`, `handoff`, ...). */
  readonly kind: string;

  constructor(toolName: string, kind: string, why: string) {
    super(`countersign:unguarded_tool: ${kind} ${toolName} is refused: ${why}`);
    this.name = 'CountersignUnguardedTool';
    this.toolName = toolName;
    this.kind = kind;
  }
}
