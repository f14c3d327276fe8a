/**
 * A copy of `keys` in UTF-16 code-unit order: what `keys.slice().sort()` returns (the
 * default sort compares strings by code units, as `<` does), for the few keys of the
 * objects on the hot paths (arguments, audit details) by insertion sort, because the
 * built-in sort allocates its own work state on every call. `keys` is left as it is.
 */
export function sortedKeys(keys: readonly string[]): string[] {
  if (keys.length > 16) return keys.slice().sort();
  const sorted = keys.slice();
  for (let i = 1; i < sorted.length; i++) {
    const key = sorted[i]!;
    let j = i - 1;
    while (j >= 0 && sorted[j]! > key) {
      sorted[j + 1] = sorted[j]!;
      j--;
    }
    sorted[j + 1] = key;
  }
  return sorted;
}
