#!/usr/bin/env bash
# Debian packages the tests and benchmarks need: ClickHouse server 18.16 (the HTTP path, the
# Distributed-table comparisons and the parity check) and Chromium (the /play browser test, driven
# by puppeteer-core, which never downloads a browser itself). Idempotent; skips what is present.
set -euo pipefail
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
missing=()
if ! command -v clickhouse-server >/dev/null 2>&1 || ! command -v clickhouse-client >/dev/null 2>&1; then
  missing+=(clickhouse-server clickhouse-client tzdata)
fi
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
clickhouse-server --version 2>/dev/null | head -1 || true
/usr/bin/chromium --version 2>/dev/null || true
