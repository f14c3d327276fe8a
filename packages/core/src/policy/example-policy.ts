/**
 * The server's default policy, and a template to copy. Covers each verdict once:
 * read-only tools run, small transfers run, larger ones need finance, deletes never
 * run, deploys need two release managers. Anything not listed is denied.
 */
export const EXAMPLE_POLICY_YAML = `# Countersign policy. Rules are tried in order; the first match wins.
# A tool no rule matches is denied.
version: 1
defaults:
  approvalTtlSeconds: 900

rules:
  - id: read-only
    description: Tools that only read.
    tools: ["get_*", "list_*", "read_*", "search_*"]
    verdict: allow

  - id: small-transfers
    description: Transfers of at most 100 run without approval.
    tool: transfer
    when:
      type: object
      properties:
        amount: { type: number, minimum: 0, maximum: 100 }
      required: [amount]
    verdict: allow

  - id: large-transfers
    description: Every other transfer (larger, negative or malformed amount) needs finance.
    tool: transfer
    verdict: approve
    approval:
      approvers: { roles: [finance] }
      ttlSeconds: 600

  - id: no-deletes
    tool: "delete_*"
    verdict: deny

  - id: deploy
    description: Deploys need two different release managers.
    tool: deploy
    verdict: approve
    approval:
      approvers: { roles: [release-manager] }
      required: 2
`;
