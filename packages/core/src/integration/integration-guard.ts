import type { GatePort } from '../gate/index.ts';
import type { CallIndex } from './call-index.ts';
import type { CompletionFailure } from './grant-calls.ts';
import type { GuardedContext } from './guarded-call.ts';
import type { IntentOption } from './intent.ts';
import { rememberRefusal } from './relay-checked.ts';
import type { IntegrationGuardOptions } from './response-calls.ts';

/**
 * What one request's (or run's) integration state holds in every framework: the port,
 * the app's context (copied, so a later change of the app's object changes nothing),
 * the call index, how approvals are asked for, the intent option, and every refusal
 * and lost completion, for the app. Each framework's guard extends it with its own
 * bookkeeping of the calls a model response contained.
 */
export abstract class IntegrationGuard<Approval, Denial> {
  readonly port: GatePort;
  readonly context: GuardedContext;
  readonly index: CallIndex;
  readonly approval: Approval;
  readonly intent: IntentOption | undefined;
  /** Every refusal this guard gave, in order: what the app can log or render. */
  readonly refusals: Denial[] = [];
  /** Calls that ran but whose result `complete` could not record (they read `dispatched`). */
  readonly completionFailures: CompletionFailure[] = [];

  constructor(options: IntegrationGuardOptions & { approval?: Approval | undefined }, defaults: { approval: Approval; index: () => CallIndex }) {
    this.port = options.port;
    this.context = { runId: options.context.runId, sessionId: options.context.sessionId, principal: options.context.principal };
    this.index = options.index ?? defaults.index();
    this.approval = options.approval ?? defaults.approval;
    this.intent = options.intent;
  }

  /**
   * Records a refusal given for `callId`, shown to the model as `text`, and returns it.
   * A later request may relay that text for the call: it is recognised by this record
   * (`relayChecked`), never by its format.
   */
  protected remember(denial: Denial, callId: string, text: string): Denial {
    this.refusals.push(denial);
    rememberRefusal(this.index, this.context.runId, callId, text);
    return denial;
  }
}
