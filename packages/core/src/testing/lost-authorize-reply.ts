import type { GatePort } from '../gate/index.ts';

/**
 * `port`, except that every authorize is answered `outcome_unknown`, as the gate answers
 * when a database connection cut loses the reply to its consume's COMMIT. `commits` says
 * whether the consume took effect behind it (the real authorize runs first). `callStatus`
 * replaces the port's own (e.g. a store that cannot be read either).
 */
export function lostAuthorizeReply(port: GatePort, commits: boolean, callStatus: GatePort['callStatus'] = (id) => port.callStatus(id)): GatePort {
  return {
    propose: (response) => port.propose(response),
    authorize: async (request) => {
      if (commits) await port.authorize(request);
      return { status: 'not_approved', reason: 'outcome_unknown', proposalId: request.proposalId, message: 'the reply to COMMIT was lost' };
    },
    complete: (grant, completion) => port.complete(grant, completion),
    waitForDecision: (requestId, options) => port.waitForDecision(requestId, options),
    token: (requestId) => port.token(requestId),
    callStatus,
    checkRelayed: (request) => port.checkRelayed(request),
    reportRefusal: (report) => port.reportRefusal(report),
    recordProviderOutput: (report) => port.recordProviderOutput(report),
  };
}
