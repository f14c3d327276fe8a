export type PolicyErrorCode = 'invalid_policy' | 'unreadable_policy';

/**
 * A policy that cannot be loaded. `problems` lists every issue found, each as
 * `path: message` (e.g. `rules[2].verdict: expected "allow" | "approve" | "deny"`),
 * so an operator can fix the document in one pass; `message` joins them.
 */
export class PolicyError extends Error {
  readonly code: PolicyErrorCode;
  readonly problems: readonly string[];

  constructor(code: PolicyErrorCode, problems: readonly string[], options?: { cause?: unknown }) {
    const summary = code === 'invalid_policy' ? 'invalid policy' : 'unreadable policy';
    super(`${summary}:\n${problems.map((p) => `  - ${p}`).join('\n')}`, options);
    this.name = 'PolicyError';
    this.code = code;
    this.problems = Object.freeze([...problems]);
  }
}
