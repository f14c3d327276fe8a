/** Outcome of turning configuration text (policy, auth file) into a plain value, before the document itself is validated. */
export type TextParseResult = { ok: true; value: unknown } | { ok: false; problems: string[] };
