#!/usr/bin/env bash
# The page's libraries (npm, versions pinned in package.json) into web/vendor/, the accuracy table
# (web/accuracy-data.js, written by the accuracy program from the engine as built), then the
# self-contained offline folder dist/trainmem-web/ and its zip dist/trainmem-web.zip.
# Needs web/engine.js and build-native/ (scripts/build.sh builds both first) and node_modules (npm ci).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f web/engine.js ] || { echo "build-web: web/engine.js is missing (run scripts/build.sh)" >&2; exit 1; }
[ -x build-native/tests/accuracy ] || { echo "build-web: build-native/tests/accuracy is missing (run scripts/build.sh)" >&2; exit 1; }
[ -d node_modules/chart.js ] && [ -d node_modules/esbuild ] || npm ci --no-audit --no-fund

rm -rf web/vendor
mkdir -p web/vendor
# Chart.js with only what the stacked bar chart and the What-fits curves (line charts) use, as a
# classic script that sets window.Chart; its licence banner is kept.
node_modules/.bin/esbuild --bundle --minify --format=iife --target=es2020 --legal-comments=inline \
  --log-level=warning --outfile=web/vendor/chart.min.js <<'JS'
import { Chart, BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend,
  Tooltip } from 'chart.js';
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip);
window.Chart = Chart;
JS
# lz-string's minified file has no licence banner: its licence travels beside it.
sed '/^\/\/# sourceMappingURL=/d' node_modules/lz-string/libs/lz-string.min.js > web/vendor/lz-string.min.js
cp node_modules/lz-string/LICENSE web/vendor/lz-string-LICENSE

# The page's Accuracy section: predicted vs measured, from the code as built (never edited by hand).
build-native/tests/accuracy tests/fixtures/measured_cases.json --js web/accuracy-data.js >/dev/null

rm -rf dist/trainmem-web dist/trainmem-web.zip
mkdir -p dist
cp -r web dist/trainmem-web
(cd dist && python3 -m zipfile -c trainmem-web.zip trainmem-web)
echo "build-web: dist/trainmem-web/ and dist/trainmem-web.zip ($(du -k dist/trainmem-web.zip | cut -f1) KB)"
