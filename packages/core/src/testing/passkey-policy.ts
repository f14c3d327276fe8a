/**
 * The policy the passkey suites share: transfers need a finance approver's passkey-signed
 * decision; deploys need a finance approver, no passkey.
 */
export const PASSKEY_POLICY_YAML = `
version: 1
rules:
  - id: transfers
    tool: transfer
    verdict: approve
    approval:
      approvers: { roles: [finance] }
      passkey: required
  - id: deploys
    tool: deploy
    verdict: approve
    approval:
      approvers: { roles: [finance] }
`;
