/**
 * The server's default policy, and a template to copy. Covers each verdict once:
 * read-only tools run, small transfers run, larger ones need finance, deletes never
 * run, deploys need two release managers. Anything not listed is denied. A new or
 * changed definition of a tool an agent runs itself is reviewed by an admin.
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

# Tools an agent runs itself (registered with PUT /api/v1/tools) run only under a
# definition a person approved. Who approves a new or changed definition, how many
# of them, and how long the review stays open. Without this block: one holder of
# the role admin, within 7 days.
definitionReview:
  approvers: { roles: [admin] }
  required: 1
  ttlSeconds: 604800
`;
