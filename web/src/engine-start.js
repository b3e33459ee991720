// The hosted page's first script (async, in index.html's head, ahead of app.js): starts compiling
// engine.wasm while the browser is still fetching and parsing app.js, whose main-thread work would
// otherwise come first. app.js takes the module over (engine-module.js). The offline folder (the
// wasm embedded in app.js) has no such script.
import { compileEngine } from './engine-client.js';
import { engineModule } from './engine-module.js';

engineModule(() => compileEngine({ wasmUrl: new URL('engine.wasm', document.baseURI) }));
