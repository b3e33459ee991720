// The page's entry point (bundled into app.js): the engine first (offline, its wasm compiles and its
// worker starts here while the rest of the page sets up; hosted, engine-start.js started it before
// this script loaded), then preferences and the controller (app.js) with the catalog's lists, which
// the build wrote into this bundle (scripts/build-web.mjs): the first estimate waits for no catalog
// call, and the engine reads only the catalog files it names.
import { t } from './i18n.js';
import { byId } from './dom.js';
import { STORE, load } from './storage.js';
import { Store } from './store.js';
import { EngineClient, bootEngine, compileEngine } from './engine-client.js';
import { EngineStartMissing, takeEngine } from './engine-handover.js';
import { loadChunk } from './chunks.js';
import { App, applyPreferences } from './app.js';
import workerSource from 'trainmem:worker-source';
import wasmBase64 from 'trainmem:wasm-base64';
import catalog from 'trainmem:catalog';
import { errorText } from './error-text.js';

/** @param {unknown} e */
function failed(e) {
  const status = byId('status');
  status.textContent = e instanceof EngineStartMissing ? t('engine_start_missing')
    : t('engine_failed', { message: errorText(e) });
  status.className = 'bad';
}

/**
 * Sets the page up on the engine's first worker.
 * @param {import('./engine-client.js').EngineBoot} boot
 */
function setUp(boot) {
  // The trainer-config module comes with the config-files chunk, on the first import or export.
  const loadConfigModule = () => loadChunk('config-files').then(({ configWorkerSource, configWasmBase64 }) => ({
    workerSource: configWorkerSource,
    module: compileEngine(configWasmBase64 ? { wasmBase64: configWasmBase64 } : { wasmUrl: new URL('config-engine.wasm', document.baseURI) }),
  }));
  const engine = new EngineClient(boot, loadConfigModule);
  engine.ready.then(() => performance.mark('trainmem-engine-ready'), () => {});
  const store = new Store();
  const prefs = load(STORE.prefs) || {};
  store.unit = prefs.unit === 'GB' ? 'GB' : 'GiB';
  byId('lang').value = prefs.lang === 'zh' || prefs.lang === 'en' ? prefs.lang : /^zh/i.test(navigator.language) ? 'zh' : 'en';
  byId('theme').value = prefs.theme === 'light' || prefs.theme === 'dark' ? prefs.theme : '';
  applyPreferences(store);
  // The offline copy's link: the hosted site's build (engine.wasm streamed) has the zip beside the
  // page; the offline folder (the wasm embedded), from disk or hosted on its own, has none.
  byId('offline-zip').hidden = Boolean(wasmBase64) || location.protocol === 'file:';
  new App(engine, catalog, store).start().catch(failed);
}

try {
  // The offline folder embeds the wasm and the worker's source (file:// cannot fetch); over http
  // engine-start.js (in index.html's head) holds the worker's source and started the worker.
  if (wasmBase64) setUp(bootEngine(workerSource, { wasmBase64 }));
  else takeEngine().then(setUp).catch(failed);
} catch (e) {
  failed(e);
}
