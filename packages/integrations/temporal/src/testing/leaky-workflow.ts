// A workflow that mints a token itself with core's token module (node:crypto). The bundle
// test proves the sandbox bundler refuses it: keys and tokens belong to the gate, in activities.
import { mintApprovalToken } from '@countersign/core/token';

export async function leakyWorkflow(): Promise<string> {
  return typeof mintApprovalToken;
}
