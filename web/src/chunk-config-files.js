// The config-file parsers' chunk (chunk-config-files.js, loaded by chunks.js on the first import):
// the YAML and TOML libraries are needed only when a trainer config is imported or exported.
import { importFile, pastedName, yamlText } from './config-files.js';

document.dispatchEvent(new CustomEvent('trainmem:chunk', { detail: { name: 'config-files', exports: { importFile, pastedName, yamlText } } }));
