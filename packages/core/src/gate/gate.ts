import type { Agent } from './agent.ts';
import { ApprovalService } from './approvals.ts';
import { type GateConfig, type GateDeps, resolveConfig } from './config.ts';
import { type DispatchRequest, dispatch } from './dispatch.ts';
import type { DispatchOutcome, ProposeOutcome } from './outcomes.ts';
import { type ModelToolCall, propose } from './propose.ts';
import { type RegisterToolsOutcome, registerTools } from './register-tools.ts';
import { type PinFileEntry, pinTools, type PinToolsOutcome } from './pin-tools.ts';

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
   * Call when the model responds with a tool call, before anything executes. `agent`
   * is the authenticated agent runtime recording it (default: the in-process owner);
   * the run becomes that agent's on its first call.
   */
  propose(call: ModelToolCall, agent?: Agent): Promise<ProposeOutcome> {
    return propose(this.deps, call, agent);
  }

  /** A remote agent declares the definitions of the tools it runs itself (see `registerTools`). */
  registerTools(definitions: unknown, agent?: Agent): Promise<RegisterToolsOutcome> {
    return registerTools(this.deps, definitions, agent);
  }

  /** An operator pins tools (from a file): each becomes trusted under the given digest. */
  pinTools(entries: readonly PinFileEntry[], actor = 'operator'): Promise<PinToolsOutcome> {
    return pinTools(this.deps, entries, actor);
  }

  /** The one place tools run: only calls `agent` recorded, selected by the proposal id propose returned. */
  dispatch(request: DispatchRequest, agent?: Agent): Promise<DispatchOutcome> {
    return dispatch(this.deps, request, agent);
  }
}
