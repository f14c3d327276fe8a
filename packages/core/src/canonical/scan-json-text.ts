import { describePath, quoteForMessage } from './describe.ts';
import { CanonicalizationError } from './errors.ts';
import { FORBIDDEN_KEYS } from './forbidden-keys.ts';
import { type PathSegment, toJsonPointer } from './json-pointer.ts';
import type { CanonicalLimits } from './limits.ts';
import { checkNumberLiteral } from './number-literal.ts';

/** What a scan found; grammar is not its job (`JSON.parse` decides that afterwards). */
export interface ScanReport {
  /** The first problem in document order that strict intake refuses, if any. */
  problem: CanonicalizationError | undefined;
  /** The scanner met something no valid JSON text contains and stopped looking. */
  malformed: boolean;
  /** A `-0` literal was seen; the parsed value must be normalized to `0`. */
  negativeZero: boolean;
  /**
   * Some object key is written with an escape. `JSON.parse` can then return a wrong
   * key name (see `buildJsonValue`), so the value must not be built by it.
   */
  escapedKey: boolean;
}

interface Frame {
  /** `undefined` for an array; the keys seen so far for an object. */
  keys: Set<string> | undefined;
  /** Object: the next string is a key. */
  expectKey: boolean;
  /** Object: the last key; array: the index of the current element. */
  at: PathSegment;
}

/**
 * One linear pass over JSON text that finds what `JSON.parse` accepts silently:
 * duplicate keys, forbidden keys, lone surrogates (raw or escaped), integers beyond
 * ±(2^53−1) and number literals a double cannot hold exactly. It also enforces the
 * depth limit as it goes, so 100,000 unclosed `[` cost one loop, not a stack.
 *
 * It is deliberately lenient about grammar: on text `JSON.parse` accepts, every
 * token is unambiguous and the scan sees exactly the keys and literals the parser
 * does; on anything else the parse fails anyway, so the scan just stops
 * (`malformed`). Only the depth limit throws here; other problems are reported so
 * that malformed text is reported as `invalid_json` first.
 */
export function scanJsonText(text: string, limits: CanonicalLimits): ScanReport {
  const stack: Frame[] = [];
  const textWellFormed = text.isWellFormed();
  let problem: CanonicalizationError | undefined;
  let negativeZero = false;
  let escapedKey = false;
  let nextBackslash = text.indexOf('\\');
  const length = text.length;
  let i = 0;

  const pathHere = (): string => toJsonPointer(stack.map((frame) => frame.at));
  const report = (error: CanonicalizationError): void => {
    problem ??= error;
  };
  // Paths are built only when a problem is reported: keys are checked on every object member.
  const checkKey = (key: string, seen: Set<string>, loneSurrogate: boolean): void => {
    if (loneSurrogate) {
      const path = pathHere();
      report(new CanonicalizationError('lone_surrogate', `key ${quoteForMessage(key)} has a lone surrogate at ${describePath(path)}`, path));
    } else if (FORBIDDEN_KEYS.has(key)) {
      const path = pathHere();
      report(new CanonicalizationError('forbidden_key', `forbidden key ${quoteForMessage(key)} at ${describePath(path)}`, path));
    } else if (seen.has(key)) {
      const parent = toJsonPointer(stack.slice(0, -1).map((frame) => frame.at));
      report(new CanonicalizationError('duplicate_key', `duplicate key ${quoteForMessage(key)} at ${describePath(parent)}`, pathHere()));
    } else {
      seen.add(key);
    }
  };

  while (i < length) {
    const c = text.charCodeAt(i);
    switch (c) {
      case 0x20:
      case 0x09:
      case 0x0a:
      case 0x0d:
        i++;
        continue;
      case 0x7b /* { */:
      case 0x5b /* [ */: {
        if (stack.length >= limits.maxDepth) {
          throw new CanonicalizationError(
            'too_deep',
            `nesting deeper than ${limits.maxDepth} at ${describePath(pathHere())}`,
            pathHere(),
          );
        }
        const isObject = c === 0x7b;
        stack.push({ keys: isObject ? new Set() : undefined, expectKey: isObject, at: isObject ? '' : 0 });
        i++;
        continue;
      }
      case 0x7d /* } */:
      case 0x5d /* ] */:
        if (stack.pop() === undefined) return { problem, malformed: true, negativeZero, escapedKey };
        i++;
        continue;
      case 0x2c /* , */: {
        const frame = stack.at(-1);
        if (frame === undefined) return { problem, malformed: true, negativeZero, escapedKey };
        if (frame.keys === undefined) frame.at = (frame.at as number) + 1;
        else frame.expectKey = true;
        i++;
        continue;
      }
      case 0x3a /* : */: {
        const frame = stack.at(-1);
        if (frame === undefined) return { problem, malformed: true, negativeZero, escapedKey };
        frame.expectKey = false;
        i++;
        continue;
      }
      case 0x22 /* " */: {
        // Find the closing quote, skipping escaped characters.
        let end = -1;
        let escaped = false;
        let surrogateEscape = false;
        let from = i + 1;
        for (;;) {
          const quote = text.indexOf('"', from);
          if (quote === -1) return { problem, malformed: true, negativeZero, escapedKey };
          if (nextBackslash !== -1 && nextBackslash < from) nextBackslash = text.indexOf('\\', from);
          if (nextBackslash === -1 || nextBackslash > quote) {
            end = quote;
            break;
          }
          escaped = true;
          if (text.charCodeAt(nextBackslash + 1) === 0x75 /* u */ && isSurrogateEscape(text, nextBackslash + 2)) {
            surrogateEscape = true;
          }
          from = nextBackslash + 2;
        }
        const frame = stack.at(-1);
        const keys = frame?.expectKey === true ? frame.keys : undefined;
        if (escaped && keys !== undefined) escapedKey = true;
        if (keys !== undefined || (problem === undefined && (surrogateEscape || !textWellFormed))) {
          let decoded: string;
          if (escaped) {
            try {
              decoded = JSON.parse(text.slice(i, end + 1)) as string;
            } catch {
              return { problem, malformed: true, negativeZero, escapedKey };
            }
          } else {
            decoded = text.slice(i + 1, end);
          }
          // Judge the text as written too: JSON.parse joins an escaped high surrogate
          // and a raw low one into a pair, but such text is not well-formed Unicode.
          const loneSurrogate =
            (!textWellFormed && !text.slice(i + 1, end).isWellFormed()) || (escaped && !decoded.isWellFormed());
          if (keys !== undefined) {
            // Keep the path current even after a problem: a later too_deep names it.
            (frame as Frame).at = decoded;
            if (problem === undefined) checkKey(decoded, keys, loneSurrogate);
          } else if (loneSurrogate) {
            const path = pathHere();
            report(new CanonicalizationError('lone_surrogate', `string with a lone surrogate at ${describePath(path)}`, path));
          }
        }
        i = end + 1;
        continue;
      }
      case 0x2d /* - */:
      case 0x30:
      case 0x31:
      case 0x32:
      case 0x33:
      case 0x34:
      case 0x35:
      case 0x36:
      case 0x37:
      case 0x38:
      case 0x39: {
        const start = i;
        i++;
        while (i < length && isNumberChar(text.charCodeAt(i))) i++;
        if (problem === undefined) {
          const raw = text.slice(start, i);
          const parsed = Number(raw);
          if (Object.is(parsed, -0)) negativeZero = true;
          const numberProblem = Number.isNaN(parsed) ? undefined : checkNumberLiteral(raw, parsed);
          if (numberProblem !== undefined) {
            const path = pathHere();
            const what = numberProblem === 'unsafe_integer' ? 'integer outside ±(2^53−1)' : 'number not exactly representable';
            report(new CanonicalizationError(numberProblem, `${what}: ${quoteForMessage(raw)} at ${describePath(path)}`, path));
          }
        }
        continue;
      }
      default:
        // true / false / null; anything else is a syntax error for JSON.parse to name.
        if (c >= 0x61 && c <= 0x7a) {
          i++;
          while (i < length && text.charCodeAt(i) >= 0x61 && text.charCodeAt(i) <= 0x7a) i++;
          continue;
        }
        return { problem, malformed: true, negativeZero, escapedKey };
    }
  }
  return { problem, malformed: stack.length !== 0, negativeZero, escapedKey };
}

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

/** `text[at..]` starts with the hex digits of a surrogate code unit (D800–DFFF). */
function isSurrogateEscape(text: string, at: number): boolean {
  const first = text.charCodeAt(at);
  if (first !== 0x64 && first !== 0x44) return false;
  const second = text.charCodeAt(at + 1);
  return (second >= 0x38 && second <= 0x39) || (second >= 0x61 && second <= 0x66) || (second >= 0x41 && second <= 0x46);
}
