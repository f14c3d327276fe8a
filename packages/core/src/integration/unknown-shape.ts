import type { GatePort } from '../gate/index.ts';
import type { GuardedContext } from './guarded-call.ts';
import { CountersignRelayRefusal } from './relay.ts';

/**
 * A message of a shape the integration does not know carries something to the model:
 * refused, not passed through (deny by default for shapes). A `CountersignRelayRefusal`
 * (`invalid_request`) that also says which shape, so that the refusal can be audited.
 */
export class CountersignUnknownShape extends CountersignRelayRefusal {
  /** Where and what, e.g. `a model request input item of type computer_call_result`: the shape, never its content. */
  readonly shape: string;

  constructor(shape: string) {
    super('invalid_request', `${shape} is not one Countersign can check, so it is refused`);
    this.name = 'CountersignUnknownShape';
    this.shape = shape;
  }
}

/** The refusal of a message part `shape` found in `where` (only its `type`, or its JavaScript type, is named). */
export function unknownShape(where: string, shape: unknown): CountersignUnknownShape {
  const type = typeof shape === 'object' && shape !== null ? String((shape as { type?: unknown }).type) : typeof shape;
  return new CountersignUnknownShape(`${where}: a message part of type ${type}`.slice(0, 300));
}

/**
 * Runs `collect` (an integration's reading of the messages it relays to the model); an
 * unknown shape it refuses is reported to the gate (`port.reportRefusal`, audited as a
 * `rejection` with reason `unknown_shape`) before the refusal is thrown on. A report
 * that cannot be written does not let anything through: the refusal stands, and the
 * gate's own records show the outage.
 */
export async function auditingUnknownShapes<T>(port: GatePort, context: GuardedContext, collect: () => T): Promise<T> {
  try {
    return collect();
  } catch (error) {
    if (error instanceof CountersignUnknownShape) await reportShape(port, context, error);
    throw error;
  }
}

async function reportShape(port: GatePort, context: GuardedContext, refusal: CountersignUnknownShape): Promise<void> {
  try {
    await port.reportRefusal({ runId: context.runId, sessionId: context.sessionId, principal: context.principal, reason: 'unknown_shape', detail: refusal.shape });
  } catch {
    // As above: the refusal is thrown either way.
  }
}
