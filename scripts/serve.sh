#!/usr/bin/env bash
# Sets up, builds, and serves the page (dist/site/) on http://127.0.0.1:4173/ (Ctrl-C stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
PORT="${PORT:-4173}"
echo "serving dist/site/ on http://127.0.0.1:${PORT}/ (offline: open dist/trainmem-web/index.html from disk)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist/site
