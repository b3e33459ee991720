// The hosted page's first script (in index.html's head, right after its Content-Security-Policy):
// starts the engine's first worker, which fetches and compiles engine.wasm on its own thread while
// the page is still being parsed and laid out and app.js is still being fetched and run on the main
// thread. app.js takes the worker over (engine-handover.js). The offline folder (the wasm embedded
// in app.js) has no such script.
import workerSource from 'trainmem:worker-source';
import { bootEngine } from './engine-client.js';
import { offerEngine } from './engine-handover.js';

offerEngine(() => bootEngine(workerSource, { wasmUrl: new URL('engine.wasm', document.baseURI) }));
