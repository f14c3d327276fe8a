import type { Proposal } from '../../ledger/types.ts';
import type { PolicyInput } from '../../policy/types.ts';

/**
 * The policy input for a recorded call at dispatch. `args` is an own enumerable accessor
 * (as the object literal with a getter this replaces had: spread, JSON.stringify and key
 * order see the same members) that parses the ledger's canonical text on first read, so a
 * name-only rule set never pays for parsing large arguments. A class, because a literal
 * with a getter is built through the runtime on every dispatch (~0.3 µs); here the
 * accessor is one shared descriptor and the state is private.
 */
export class RecordedCallInput implements PolicyInput {
  // Declared only: the constructor defines them, in the order the literal had.
  declare readonly toolName: string;
  declare readonly args: unknown;
  declare readonly principal: string;
  declare readonly runId: string;
  declare readonly sessionId: string;
  declare readonly definitionDigest: string | undefined;
  readonly #canonicalArgs: string;
  #parsed = false;
  #args: unknown;

  constructor(proposal: Proposal) {
    this.#canonicalArgs = proposal.canonicalArgs;
    this.toolName = proposal.toolName;
    Object.defineProperty(this, 'args', RecordedCallInput.#ARGS);
    this.principal = proposal.principal;
    this.runId = proposal.runId;
    this.sessionId = proposal.sessionId;
    this.definitionDigest = proposal.definitionDigest;
  }

  static readonly #ARGS: PropertyDescriptor = {
    get(this: RecordedCallInput): unknown {
      return this.#readArgs();
    },
    enumerable: true,
    configurable: true,
  };

  #readArgs(): unknown {
    if (!this.#parsed) {
      this.#args = JSON.parse(this.#canonicalArgs);
      this.#parsed = true;
    }
    return this.#args;
  }
}
