#!/usr/bin/env bash
# Builds the native CLI and tests (build-native/), the WASM engine (build-wasm/wasm/engine.{js,wasm})
# and the page (dist/: scripts/build-web.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-native -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-native -j2
emcmake cmake -S . -B build-wasm -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
cmake --build build-wasm -j2
scripts/build-web.sh
