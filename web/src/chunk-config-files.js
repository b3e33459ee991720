// The config-file parsers' chunk (chunk-config-files.js, loaded by chunks.js on the first import or
// export): the YAML and TOML libraries, and the trainer-config module's worker (its Emscripten loader
// and, in the offline folder, its wasm as base64; hosted, config-engine.wasm lies beside the page).
// None of it is needed until a trainer config is imported or exported; nor are the Chinese wordings
// of the import's notes and the export's reasons, which only an import or export shows.
import { importFile, pastedName, yamlText } from './config-files.js';
import { noteReasonZh } from './import-note-reasons.js';
import { exportReasonZh } from './export-reasons.js';
import configWorkerSource from 'trainmem:config-worker-source';
import configWasmBase64 from 'trainmem:config-wasm-base64';

document.dispatchEvent(new CustomEvent('trainmem:chunk', {
  detail: { name: 'config-files', exports: { importFile, pastedName, yamlText, noteReasonZh, exportReasonZh, configWorkerSource, configWasmBase64 } },
}));
