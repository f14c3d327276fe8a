/** One step of a path: an object key or an array index. */
export type PathSegment = string | number;

/** RFC 6901 JSON Pointer for `segments` (`~` and `/` in keys escaped as `~0` and `~1`). */
export function toJsonPointer(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    out +=
      typeof segment === 'number' ? `/${segment}` : `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`;
  }
  return out;
}
