import { CliError } from './cli-error.ts';

/** A whole number flag within [min, max]. */
export function parseIntegerFlag(flag: string, text: string, min: number, max: number): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new CliError('usage', `${flag} must be a whole number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}
