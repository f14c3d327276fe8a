/** The refusal message for a gate call that threw (a transport failure, a store down). */
export function unreachable(error: unknown): string {
  return `the gate could not be reached: ${error instanceof Error ? error.message : String(error)}`;
}
