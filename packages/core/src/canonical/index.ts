export { type CanonicalArguments, type CanonicalizeOptions, canonicalDigest, canonicalizeArguments } from './canonicalize-arguments.ts';
export { type CanonicalErrorCode, CanonicalizationError } from './errors.ts';
export { jsonCharsetProblem } from './json-charset.ts';
export { type CanonicalLimits, DEFAULT_LIMITS } from './limits.ts';
export { parseStrictJson } from './parse-strict.ts';
