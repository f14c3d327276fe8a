#!/usr/bin/env bash
# Starts what the test suite needs when it is not running: PostgreSQL (store-postgres
# tests) and Debian's Chromium (approval-page browser tests). Safe to run repeatedly.
set -uo pipefail

pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
if ! pg_up; then
  echo "ensure-services: starting PostgreSQL" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
fi
pg_up || { echo "ensure-services: PostgreSQL is not reachable on 127.0.0.1:5432" >&2; exit 1; }

if [ ! -x /usr/bin/chromium ]; then
  echo "ensure-services: installing Debian chromium for browser tests" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
[ -x /usr/bin/chromium ] || { echo "ensure-services: /usr/bin/chromium missing" >&2; exit 1; }
echo "ensure-services: postgres and chromium ready" >&2
