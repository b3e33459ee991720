#!/usr/bin/env bash
# Builds the page from web/ into dist/ (the hosted folder dist/site/, the offline folder
# dist/trainmem-web/ and its zip): scripts/build-web.mjs, with the npm packages it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules/chart.js ] && [ -d node_modules/esbuild ] || npm ci --no-audit --no-fund
node scripts/build-web.mjs
