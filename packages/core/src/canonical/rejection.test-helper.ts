import { CanonicalizationError } from './errors.ts';

/** The code and path a call is rejected with; fails the test if it returns or throws anything else. */
export function rejection(f: () => unknown): { code: string; path: string | undefined } {
  try {
    f();
  } catch (error) {
    if (error instanceof CanonicalizationError) return { code: error.code, path: error.path };
    throw error;
  }
  throw new Error('expected a CanonicalizationError, got a result');
}
