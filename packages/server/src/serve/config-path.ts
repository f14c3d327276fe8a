const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A location in a config document as an operator reads it: `approvers[1].password` (as `policy check` prints them). */
export function formatConfigPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out === '' ? '(root)' : out;
}
