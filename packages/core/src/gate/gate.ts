import type { Agent } from './agent.ts';
import { ApprovalService } from './approvals.ts';
import { type GateConfig, type GateDeps, resolveConfig } from './config.ts';
import { type DispatchRequest, dispatch } from './dispatch.ts';
import type { GateEvents } from '../events/types.ts';
import type { DispatchOutcome, ProposeOutcome } from './outcomes.ts';
import { type ModelToolCall, propose } from './propose.ts';

/**
 * The gate: record what the model asked for, then execute only through `dispatch`.
 * Integrations wrap their framework's tool-execution hook around these two calls.
 */
export class Gate {
  readonly deps: GateDeps;
  readonly approvals: ApprovalService;

  constructor(config: GateConfig) {
    this.deps = resolveConfig(config);
    this.approvals = new ApprovalService(this.deps);
  }

  /**
   * Lifecycle events (proposed, decided, authorized...), each published after the
   * store committed it, whoever caused it: this process's HTTP routes, code calling
   * the gate directly, or (with a replica-aware bus) another replica. Subscribe only;
   * listeners re-read the store for anything they act on.
   */
  get events(): Pick<GateEvents, 'subscribe'> {
    return this.deps.events;
  }

  /**
   * Call when the model responds with a tool call, before anything executes. `agent`
   * is the authenticated agent runtime recording it (default: the in-process owner);
   * the run becomes that agent's on its first call.
   */
  propose(call: ModelToolCall, agent?: Agent): Promise<ProposeOutcome> {
    return propose(this.deps, call, agent);
  }

  /** The one place tools run: only calls `agent` recorded, selected by the proposal id propose returned. */
  dispatch(request: DispatchRequest, agent?: Agent): Promise<DispatchOutcome> {
    return dispatch(this.deps, request, agent);
  }
}
