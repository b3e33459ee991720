#!/usr/bin/env bash
# Installs what the project needs on Debian 12 when it is missing: the apt packages below, then the npm
# packages of package-lock.json (Node.js 20 or later).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pkg in emscripten catch2 nlohmann-json3-dev chromium cmake ninja-build g++ python3 libbenchmark-dev clang-14 libclang-rt-14-dev libyaml-cpp-dev libtomlplusplus-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
fi

if ! node -e 'process.exit(+process.versions.node.split(".")[0]>=20?0:1)' 2>/dev/null; then
  echo "setup: Node.js 20 or later is required (Playwright 1.65); Debian's nodejs 18 is too old" >&2
  exit 1
fi
if [ ! -d node_modules/@playwright/test ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
