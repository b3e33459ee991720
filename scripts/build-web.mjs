// Builds the page from web/ (sources, never written to) into dist/ (see web/README.md):
//   dist/site/          the hosted page: app.js loads engine.wasm beside it with streaming compilation
//   dist/trainmem-web/  the offline folder (open index.html from disk): the wasm embedded in app.js
//   dist/trainmem-web.zip, also served as dist/site/trainmem-web.zip
// Each folder: index.html, style.css, app.js (web/src/main.js bundled by esbuild into one classic
// script, with the engine worker's source inlined: a Blob worker runs from file://), and the chunks
// loaded on first use: chunk-charts.js (Chart.js), chunk-config-files.js (the YAML and TOML parsers
// of the config import) and chunk-accuracy.js (the accuracy program's and step-time tables for the
// engine as built). Needs build-wasm/wasm/engine.{js,wasm},
// build-native/tests/accuracy and time_accuracy (scripts/build.sh builds them first) and
// node_modules (npm ci).
//   node scripts/build-web.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'web');
const DIST = path.join(ROOT, 'dist');
const ENGINE_JS = path.join(ROOT, 'build-wasm', 'wasm', 'engine.js');
const ENGINE_WASM = path.join(ROOT, 'build-wasm', 'wasm', 'engine.wasm');
const ACCURACY = path.join(ROOT, 'build-native', 'tests', 'accuracy');
const TIME_ACCURACY = path.join(ROOT, 'build-native', 'tests', 'time_accuracy');
const TARGET = 'es2020';

for (const [file, hint] of [[ENGINE_JS, 'scripts/build.sh'], [ENGINE_WASM, 'scripts/build.sh'], [ACCURACY, 'scripts/build.sh']]) {
  if (!fs.existsSync(file)) throw new Error(`build-web: ${path.relative(ROOT, file)} is missing (run ${hint})`);
}

// Modules the bundles import that the build makes up (web/src/virtual-modules.d.ts types them).
function virtualModules(modules) {
  return {
    name: 'trainmem-virtual',
    setup(build) {
      build.onResolve({ filter: /^trainmem:/ }, (args) => ({ path: args.path, namespace: 'trainmem' }));
      build.onLoad({ filter: /.*/, namespace: 'trainmem' }, (args) => {
        if (!(args.path in modules)) throw new Error('build-web: no module ' + args.path);
        return { contents: 'export default ' + JSON.stringify(modules[args.path]) + ';', loader: 'js' };
      });
    },
  };
}

async function bundle(entry, options = {}) {
  const result = await esbuild.build({
    entryPoints: [path.join(WEB, 'src', entry)],
    bundle: true,
    minify: true,
    format: 'iife',
    target: TARGET,
    legalComments: 'inline',
    logLevel: 'warning',
    write: false,
    ...options,
  });
  return result.outputFiles[0].text;
}

// One accuracy program's table ({summary, rows}) for the engine as built: it writes a classic
// script that sets window[global].
function programTable(program, fixture, global) {
  const tmp = fs.mkdtempSync(path.join(DIST, '.accuracy-'));
  try {
    const file = path.join(tmp, 'accuracy-data.js');
    execFileSync(program, [path.join(ROOT, 'tests', 'fixtures', fixture), '--js', file], { stdio: 'ignore' });
    const sandbox = {};
    new Function('window', fs.readFileSync(file, 'utf8'))(sandbox);
    return sandbox[global];
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// The memory accuracy table ({summary, rows}) with the step-time one as its `time`.
function accuracyData() {
  return { ...programTable(ACCURACY, 'measured_cases.json', 'TRAINMEM_ACCURACY'),
    time: programTable(TIME_ACCURACY, 'throughput_cases.json', 'TRAINMEM_TIME_ACCURACY') };
}

// The engine worker's source: Emscripten's loader and engine-worker.js in one function scope.
async function workerSource() {
  const loader = fs.readFileSync(ENGINE_JS, 'utf8');
  const worker = await bundle('worker-main.js', { globalName: 'trainmemWorker' });
  return '(function () {\n' + loader + '\n' + worker + '\ntrainmemWorker.start(createEngine);\n})();\n';
}

async function writeFolder(dir, { app, chunks, wasm }) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const file of ['index.html', 'style.css']) fs.copyFileSync(path.join(WEB, file), path.join(dir, file));
  fs.writeFileSync(path.join(dir, 'app.js'), app);
  for (const [name, text] of Object.entries(chunks)) fs.writeFileSync(path.join(dir, name), text);
  if (wasm) fs.copyFileSync(ENGINE_WASM, path.join(dir, 'engine.wasm'));
}

async function main() {
  fs.mkdirSync(DIST, { recursive: true });
  const worker = await workerSource();
  const chunks = {
    'chunk-charts.js': await bundle('chunk-charts.js'),
    'chunk-config-files.js': await bundle('chunk-config-files.js'),
    'chunk-accuracy.js': await bundle('chunk-accuracy.js', { plugins: [virtualModules({ 'trainmem:accuracy-data': accuracyData() })] }),
  };
  const app = (wasmBase64) => bundle('main.js', {
    plugins: [virtualModules({ 'trainmem:worker-source': worker, 'trainmem:wasm-base64': wasmBase64 })],
  });

  const offline = path.join(DIST, 'trainmem-web');
  await writeFolder(offline, { app: await app(fs.readFileSync(ENGINE_WASM).toString('base64')), chunks, wasm: false });
  const zip = path.join(DIST, 'trainmem-web.zip');
  fs.rmSync(zip, { force: true });
  execFileSync('python3', ['-m', 'zipfile', '-c', 'trainmem-web.zip', 'trainmem-web'], { cwd: DIST });

  const site = path.join(DIST, 'site');
  await writeFolder(site, { app: await app(''), chunks, wasm: true });
  fs.copyFileSync(zip, path.join(site, 'trainmem-web.zip'));
  console.log(`build-web: dist/site/ (hosted), dist/trainmem-web/ and dist/trainmem-web.zip (${Math.round(fs.statSync(zip).size / 1024)} KB)`);
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
