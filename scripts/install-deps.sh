#!/usr/bin/env bash
# Debian packages the tests and benchmarks need: ClickHouse server 18.16 (the HTTP path, the
# Distributed-table comparisons and the parity check) and Chromium (the /play browser test, driven
# by puppeteer-core, which never downloads a browser itself). Runs before `npm test` (the pretest
# script): idempotent, and a fraction of a second when everything is present.
set -euo pipefail
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
missing=()
if ! command -v clickhouse-server >/dev/null 2>&1 || ! command -v clickhouse-client >/dev/null 2>&1; then
  missing+=(clickhouse-server clickhouse-client tzdata)
fi
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: ${missing[*]} missing and there is no apt-get to install them (the tests need Debian's clickhouse-server 18.16 and chromium)" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]} from Debian..." >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
clickhouse-server --version 2>/dev/null | head -1 || true
/usr/bin/chromium --version 2>/dev/null || true
