// Builds the page from web/ (sources, never written to) into dist/ (see web/README.md):
//   dist/site/          the hosted page: engine.wasm beside it, fetched and compiled by the engine's
//                       first worker, which engine-start.js (web/src/engine-start.js) starts while
//                       app.js loads
//   dist/trainmem-web/  the offline folder (open index.html from disk): the wasm embedded in app.js
//   dist/trainmem-web.zip, also served as dist/site/trainmem-web.zip
// Each folder: index.html, style.css, app.js (web/src/main.js bundled by esbuild into one classic
// script, with the engine worker's source inlined: a Blob worker runs from file://, and the
// catalog's lists as `trainmem catalog` writes them), and the chunks
// loaded on first use: chunk-charts.js (Chart.js), chunk-config-files.js (the YAML and TOML parsers
// of the config import and the config module's worker: config-engine.wasm beside the page when
// hosted, embedded in the chunk offline) and chunk-accuracy.js (the accuracy program's and
// step-time tables for the engine as built). Needs build-wasm/wasm/{engine,config-engine}.{js,wasm}, build-native/trainmem,
// build-native/tests/accuracy and time_accuracy (scripts/build.sh builds them first) and
// node_modules (npm ci).
//   node scripts/build-web.mjs
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'web');
const DIST = path.join(ROOT, 'dist');
const WASM_DIR = path.join(ROOT, 'build-wasm', 'wasm');
// The two modules (wasm/CMakeLists.txt): the estimating engine, and the trainer-config import and
// export that the page loads on first use.
const MODULES = {
  engine: { js: path.join(WASM_DIR, 'engine.js'), wasm: path.join(WASM_DIR, 'engine.wasm'), factory: 'createEngine' },
  config: { js: path.join(WASM_DIR, 'config-engine.js'), wasm: path.join(WASM_DIR, 'config-engine.wasm'), factory: 'createConfigEngine' },
};
const ACCURACY = path.join(ROOT, 'build-native', 'tests', 'accuracy');
const TIME_ACCURACY = path.join(ROOT, 'build-native', 'tests', 'time_accuracy');
const TRAINMEM = path.join(ROOT, 'build-native', 'trainmem');
const TARGET = 'es2020';

for (const file of [...Object.values(MODULES).flatMap((m) => [m.js, m.wasm]), ACCURACY, TRAINMEM]) {
  if (!fs.existsSync(file)) throw new Error(`build-web: ${path.relative(ROOT, file)} is missing (run scripts/build.sh)`);
}

// Modules the bundles import that the build makes up (web/src/virtual-modules.d.ts types them).
// A string is written as a literal; other data as JSON.parse of its JSON text, which a browser reads
// faster than the same object written as code.
function virtualModules(modules) {
  return {
    name: 'trainmem-virtual',
    setup(build) {
      build.onResolve({ filter: /^trainmem:/ }, (args) => ({ path: args.path, namespace: 'trainmem' }));
      build.onLoad({ filter: /.*/, namespace: 'trainmem' }, (args) => {
        if (!(args.path in modules)) throw new Error('build-web: no module ' + args.path);
        const value = modules[args.path];
        const contents = typeof value === 'string' ? JSON.stringify(value) : 'JSON.parse(' + JSON.stringify(JSON.stringify(value)) + ')';
        return { contents: 'export default ' + contents + ';', loader: 'js' };
      });
    },
  };
}

// The catalog's lists as the page shows them (model pickers and search, GPU select and table), from
// the engine as built (`trainmem catalog`, the engine's catalog output): built into the page so that
// its first estimate waits for no catalog call (the engine reads the files an estimate names by
// itself). Each entry keeps the fields the page reads (ModelEntry in web/src/model-search.js,
// GpuEntry in web/src/gpu-table.js); the rest (configs, prices, sources) stays in the engine.
function catalogLists() {
  const run = (which) => {
    // The CLI exits 1 when the catalog has malformed entries and still writes the lists and errors.
    const r = spawnSync(TRAINMEM, ['catalog', which], { maxBuffer: 64 << 20 });
    if (r.error || !r.stdout.length) throw new Error(`build-web: trainmem catalog ${which} failed: ${r.error || r.stderr}`);
    return JSON.parse(r.stdout.toString());
  };
  const { models, errors } = run('models');
  return {
    models: models.map(({ id, display_name, family, hf_id, model_type, parameters }) => ({ id, display_name, family, hf_id, model_type, parameters })),
    gpus: run('gpus').gpus.map(({ id, display_name, price_per_gpu_hour_usd, memory, device_total_bytes }) =>
      ({ id, display_name, price_per_gpu_hour_usd, memory: { bytes: memory.bytes }, device_total_bytes })),
    errors,
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

// A module's worker source: its Emscripten loader and engine-worker.js (bundled once, `worker`) in
// one function scope.
function workerSource(module, worker) {
  const loader = fs.readFileSync(module.js, 'utf8');
  return '(function () {\n' + loader + '\n' + worker + '\ntrainmemWorker.start(' + module.factory + ');\n})();\n';
}

// The hosted page's index.html runs engine-start.js first thing in its head, right after the
// Content-Security-Policy (which then covers it): the engine's first worker starts, fetches
// engine.wasm and compiles it while the page is still being parsed and laid out and app.js is still
// being fetched and run. (A parser-blocking script: the page cannot paint before its stylesheet,
// fetched meanwhile, anyway. No preload of engine.wasm: the worker's fetch would not take it over.)
const POLICY_END = '; base-uri \'none\'; form-action \'none\'">';
const ENGINE_START = '<script src="engine-start.js"></script>';

async function writeFolder(dir, { app, chunks, wasm, engineStart }) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');
  if (!html.includes(POLICY_END)) throw new Error('build-web: web/index.html has no Content-Security-Policy ending ' + POLICY_END);
  fs.writeFileSync(path.join(dir, 'index.html'), wasm ? html.replace(POLICY_END, POLICY_END + '\n  ' + ENGINE_START) : html);
  fs.copyFileSync(path.join(WEB, 'style.css'), path.join(dir, 'style.css'));
  fs.writeFileSync(path.join(dir, 'app.js'), app);
  for (const [name, text] of Object.entries(chunks)) fs.writeFileSync(path.join(dir, name), text);
  if (wasm) for (const m of Object.values(MODULES)) fs.copyFileSync(m.wasm, path.join(dir, path.basename(m.wasm)));
  if (engineStart) fs.writeFileSync(path.join(dir, 'engine-start.js'), engineStart);
}

async function main() {
  fs.mkdirSync(DIST, { recursive: true });
  const workerMain = await bundle('worker-main.js', { globalName: 'trainmemWorker' });
  const worker = workerSource(MODULES.engine, workerMain);
  const configWorker = workerSource(MODULES.config, workerMain);
  const catalog = catalogLists();
  const base64 = (m) => fs.readFileSync(m.wasm).toString('base64');
  const shared = {
    'chunk-charts.js': await bundle('chunk-charts.js'),
    'chunk-accuracy.js': await bundle('chunk-accuracy.js', { plugins: [virtualModules({ 'trainmem:accuracy-data': accuracyData() })] }),
  };
  // Hosted, the page fetches the wasm beside it (wasmBase64 empty); offline, the bundles embed it.
  const chunks = async (configWasmBase64) => ({
    ...shared,
    'chunk-config-files.js': await bundle('chunk-config-files.js', {
      plugins: [virtualModules({ 'trainmem:config-worker-source': configWorker, 'trainmem:config-wasm-base64': configWasmBase64 })],
    }),
  });
  // Offline, app.js holds the engine worker's source and the wasm; hosted, engine-start.js holds the
  // worker's source (it starts the worker) and the worker fetches engine.wasm.
  const app = (wasmBase64) => bundle('main.js', {
    plugins: [virtualModules({ 'trainmem:worker-source': wasmBase64 ? worker : '', 'trainmem:wasm-base64': wasmBase64, 'trainmem:catalog': catalog })],
  });
  const engineStart = () => bundle('engine-start.js', {
    plugins: [virtualModules({ 'trainmem:worker-source': worker })],
  });

  const offline = path.join(DIST, 'trainmem-web');
  await writeFolder(offline, { app: await app(base64(MODULES.engine)), chunks: await chunks(base64(MODULES.config)), wasm: false });
  const zip = path.join(DIST, 'trainmem-web.zip');
  fs.rmSync(zip, { force: true });
  execFileSync('python3', ['-m', 'zipfile', '-c', 'trainmem-web.zip', 'trainmem-web'], { cwd: DIST });

  const site = path.join(DIST, 'site');
  await writeFolder(site, { app: await app(''), chunks: await chunks(''), wasm: true, engineStart: await engineStart() });
  fs.copyFileSync(zip, path.join(site, 'trainmem-web.zip'));
  console.log(`build-web: dist/site/ (hosted), dist/trainmem-web/ and dist/trainmem-web.zip (${Math.round(fs.statSync(zip).size / 1024)} KB)`);
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
