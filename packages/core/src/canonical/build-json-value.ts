/**
 * Builds the value of JSON text that `JSON.parse` has already accepted, without
 * letting V8 build objects: every key and string is decoded on its own
 * (`JSON.parse` of the string literal, which builds no object) and every member is
 * defined on a fresh plain object by name.
 *
 * Why: V8's `JSON.parse` (seen on Node 24.21, V8 13.6) can return the wrong name
 * for an escaped key. When building an object it compares the key's *raw* source
 * characters, cut to the *decoded* length, with the key of the map transition it
 * expects (one left by any earlier object with the same preceding keys). So after
 * `JSON.parse('{"k":0,"\\\\":1}')`, `JSON.parse('{"k":0,"\\"":1}')` yields the
 * key `\` instead of `"` (raw `\"` cut to 1 char is `\`), and after a key `\u00`,
 * `"\u0041xyz"` comes back as `\u00`. Which answer you get depends on what the
 * process parsed before, and a caller can plant the transition.
 *
 * Only for valid JSON text; `-0` is returned as `0`.
 */
export function buildJsonValue(text: string): unknown {
  interface Open {
    container: Record<string, unknown> | unknown[];
    /** Object: the key read, waiting for its value. */
    key: string | undefined;
  }
  const stack: Open[] = [];
  let root: unknown;
  const place = (value: unknown): void => {
    const top = stack.at(-1);
    if (top === undefined) root = value;
    else if (Array.isArray(top.container)) top.container.push(value);
    else {
      // Defined, never assigned: no setter (`__proto__`) can run, whatever the key.
      Object.defineProperty(top.container, top.key as string, { value, writable: true, enumerable: true, configurable: true });
      top.key = undefined;
    }
  };
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    switch (c) {
      case 0x20:
      case 0x09:
      case 0x0a:
      case 0x0d:
      case 0x2c /* , */:
      case 0x3a /* : */:
        i++;
        continue;
      case 0x7b /* { */:
      case 0x5b /* [ */: {
        const container: Record<string, unknown> | unknown[] = c === 0x7b ? {} : [];
        place(container);
        stack.push({ container, key: undefined });
        i++;
        continue;
      }
      case 0x7d /* } */:
      case 0x5d /* ] */:
        stack.pop();
        i++;
        continue;
      case 0x22 /* " */: {
        let end = i + 1;
        let escaped = false;
        for (;;) {
          const d = text.charCodeAt(end);
          if (d === 0x22) break;
          if (d === 0x5c) {
            escaped = true;
            end += 2;
          } else if (Number.isNaN(d)) throw new SyntaxError('unterminated string');
          else end++;
        }
        const decoded = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
        const top = stack.at(-1);
        if (top !== undefined && !Array.isArray(top.container) && top.key === undefined) top.key = decoded;
        else place(decoded);
        i = end + 1;
        continue;
      }
      case 0x74 /* t */:
        place(true);
        i += 4;
        continue;
      case 0x66 /* f */:
        place(false);
        i += 5;
        continue;
      case 0x6e /* n */:
        place(null);
        i += 4;
        continue;
      default: {
        const start = i;
        i++;
        while (i < length && isNumberChar(text.charCodeAt(i))) i++;
        const n = Number(text.slice(start, i));
        if (Number.isNaN(n)) throw new SyntaxError(`unexpected character at ${start}`);
        place(n === 0 ? 0 : n);
      }
    }
  }
  return root;
}

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}
