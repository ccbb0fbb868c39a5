#!/usr/bin/env bash
# Debian packages the tests and benchmarks need: ClickHouse server 18.16 (the HTTP path, the
# Distributed-table comparisons and the parity check). Idempotent; skips what is present.
set -euo pipefail
if ! command -v clickhouse-server >/dev/null 2>&1 || ! command -v clickhouse-client >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clickhouse-server clickhouse-client tzdata >/dev/null
fi
clickhouse-server --version 2>/dev/null | head -1 || true
