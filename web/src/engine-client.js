// The engine, from the page's main thread: calls go to Web Workers (engine-worker.js) as messages
// and come back as promises, so the page never runs the engine itself and typing never waits for it.
//
// The workers are built from a Blob holding their source (the build inlines it into the page's
// script): Chromium refuses `new Worker('file.js')` on a file:// page but runs a Blob worker there,
// with `worker-src blob:` in the page's Content-Security-Policy. The wasm module is compiled once
// (over http by the engine's first worker, streaming from engine.wasm; from the bytes embedded in the
// page's script in the offline folder) and each worker instantiates it.
//
// The trainer-config import and export are a second module (config-engine.wasm, about half of the
// engine's code) with a worker of its own, loaded on the first import or export call.
//
// Lanes: each lane is one worker. A call on a cancellable lane while another runs terminates that
// worker (its promise rejects with Superseded) and starts the new call on a fresh one; on other lanes
// calls queue, and a queued call with the same key is replaced by the newer one. The estimate lane's
// worker is the engine's first (bootEngine: on the hosted page engine-start.js starts it before
// app.js has loaded); the search lane's starts on its first call (after the first estimate), so that
// two workers do not instantiate the engine at the same time while the page waits for its first
// estimate.

import { compileFromUrl } from './wasm-fetch.js';

/** Why a call's promise rejected: a newer call took its place. */
export class Superseded extends Error {
  constructor() {
    super('superseded by a newer call');
  }
}

/** @typedef {{result: string, ms: number}} Reply  the function's JSON text and the time spent in the engine */
/** @typedef {{id: number, result: string, ms: number, failed?: string}} Answer  a worker's answer to a call (engine-worker.js) */
/** @typedef {{fn: string, args: unknown[], key: string, resolve: (r: Reply) => void, reject: (e: Error) => void}} Call */

/**
 * A worker on `url` with its engine being initialised; `onAnswer` receives its answers to calls
 * (the lane that takes the worker over sets it).
 * @typedef {{worker: Worker, ready: Promise<void>, module: Promise<WebAssembly.Module>, onAnswer: (m: Answer) => void}} StartedWorker
 */

/**
 * A promise and the two functions that settle it. A rejection is reported where the promise is
 * awaited, never as unhandled (the hosted page's worker can fail before app.js waits on it).
 * @template T
 * @returns {{promise: Promise<T>, resolve: (value: T) => void, reject: (e: Error) => void}}
 */
function deferred() {
  /** @type {(value: T) => void} */
  let resolve = () => {};
  /** @type {(e: Error) => void} */
  let reject = () => {};
  /** @type {Promise<T>} */
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/**
 * Starts a worker on `url` and initialises its engine with `init`'s fields (the compiled module, or
 * engine.wasm's address: engine-worker.js) once they are known. One message listener per worker.
 * @param {string} url  the worker's Blob URL
 * @param {Promise<{module?: WebAssembly.Module, wasmUrl?: string}>} init
 * @returns {StartedWorker}  `module` is the one the worker compiled (it says so once compiled)
 */
function startWorker(url, init) {
  const worker = new Worker(url);
  /** @type {ReturnType<typeof deferred<WebAssembly.Module>>} */
  const compiled = deferred();
  /** @type {ReturnType<typeof deferred<void>>} */
  const ready = deferred();
  /** @param {Error} e */
  const fail = (e) => {
    compiled.reject(e);
    ready.reject(e);
  };
  /** @type {StartedWorker} */
  const started = {
    worker,
    module: compiled.promise,
    ready: ready.promise,
    onAnswer: () => {},
  };
  worker.addEventListener('message', (event) => {
    const m = event.data;
    if (m.type === 'ready') ready.resolve();
    else if (m.type === 'failed') fail(new Error(m.message));
    else if (m.type === 'module') compiled.resolve(m.module);
    else started.onAnswer(m);
  });
  worker.addEventListener('error', (event) => fail(new Error(event.message || 'the engine worker failed to start')));
  init.then((fields) => worker.postMessage({ type: 'init', ...fields }), fail);
  return started;
}

class Lane {
  /**
   * @param {string} url  the worker's Blob URL
   * @param {Promise<WebAssembly.Module>} module
   * @param {boolean} cancellable
   */
  constructor(url, module, cancellable) {
    this.url = url;
    this.module = module;
    this.cancellable = cancellable;
    /** @type {Call[]} */
    this.queue = [];
    /** @type {Call | null} */
    this.running = null;
    this.nextId = 1;
    this.id = 0;  // the running call's message id
    /** @type {Worker | null} */
    this.worker = null;
    /** @type {Promise<void>} resolves once the engine is ready in the worker */
    this.ready = new Promise(() => {});
    /** whether `ready` has resolved: a call then goes to the worker at once, not a microtask later */
    this.readyNow = false;
  }

  /** Starts the lane's worker. */
  spawn() {
    this.adopt(startWorker(this.url, this.module.then((module) => ({ module }))));
  }

  /**
   * Takes a started worker as the lane's own: its answers come to this lane.
   * @param {StartedWorker} started
   */
  adopt(started) {
    const worker = started.worker;
    this.worker = worker;
    this.ready = started.ready;
    this.readyNow = false;
    started.ready.then(() => {
      if (this.worker === worker) this.readyNow = true;
    }, () => {});
    started.onAnswer = (m) => this.answer(worker, m);
  }

  /** Replaces the worker (its running call is dropped). */
  respawn() {
    if (this.worker) this.worker.terminate();
    this.spawn();
  }

  /**
   * @param {string} fn
   * @param {unknown[]} args
   * @param {string} key
   * @returns {Promise<Reply>}
   */
  call(fn, args, key) {
    if (!this.worker) this.spawn();
    return new Promise((resolve, reject) => {
      const call = { fn, args, key, resolve, reject };
      if (this.running && this.cancellable) {
        this.running.reject(new Superseded());
        this.running = null;
        this.respawn();
      }
      for (const old of this.queue.filter((c) => c.key === key)) old.reject(new Superseded());
      this.queue = this.queue.filter((c) => c.key !== key);
      this.queue.push(call);
      this.next();
    });
  }

  next() {
    if (this.running || this.queue.length === 0) return;
    const call = /** @type {Call} */ (this.queue.shift());
    this.running = call;
    const worker = /** @type {Worker} */ (this.worker);
    this.id = this.nextId++;
    const id = this.id;
    const post = () => {
      if (this.running === call) worker.postMessage({ type: 'call', id, fn: call.fn, args: call.args });
    };
    // Posted in the caller's task once the worker is ready, so that the engine works while the
    // page's main thread finishes the input handler that made the call.
    if (this.readyNow) {
      post();
      return;
    }
    this.ready.then(post, (e) => {
      if (this.running !== call) return;
      this.running = null;
      call.reject(e);
    });
  }

  /**
   * @param {Worker} worker
   * @param {Answer} m
   */
  answer(worker, m) {
    if (worker !== this.worker || !this.running || m.id !== this.id) return;
    const call = this.running;
    this.running = null;
    if (m.failed !== undefined) call.reject(new Error(m.failed));
    else call.resolve({ result: m.result, ms: m.ms });
    this.next();
  }
}

/** @typedef {{workerSource: string, module: Promise<WebAssembly.Module>}} ModuleSource  a module's worker JavaScript (its Emscripten loader and engine-worker.js) and the compiled wasm */

/**
 * The engine's first worker, started, with its Blob URL and the compiled module for the page's
 * other workers.
 * @typedef {StartedWorker & {url: string}} EngineBoot
 */

/** @param {string} source  a worker's JavaScript -> its Blob URL */
const blobUrl = (source) => URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));

/**
 * Starts the engine's first worker. Over http (`wasmUrl`) the worker fetches and compiles
 * engine.wasm itself, streaming on its own thread (the page's main thread is busy meanwhile); from
 * the bytes embedded in the page's script (`wasmBase64`: the offline folder) the page compiles them
 * and hands the worker the module.
 * @param {string} workerSource  the worker's JavaScript (its Emscripten loader and engine-worker.js)
 * @param {{wasmUrl?: URL, wasmBase64?: string}} from
 * @returns {EngineBoot}
 */
export function bootEngine(workerSource, { wasmUrl, wasmBase64 }) {
  const url = blobUrl(workerSource);
  if (wasmUrl) return Object.assign(startWorker(url, Promise.resolve({ wasmUrl: String(wasmUrl) })), { url });
  const module = compileEngine({ wasmBase64 });
  module.catch(() => {});  // reported through `ready`
  return Object.assign(startWorker(url, module.then((m) => ({ module: m }))), { url, module });
}

export class EngineClient {
  /**
   * @param {EngineBoot} engine  the estimating engine's first worker (bootEngine)
   * @param {() => Promise<ModuleSource>} loadConfigModule  the trainer-config module, fetched on first use
   */
  constructor(engine, loadConfigModule) {
    /** Estimates and explanations: quick calls, queued; on the engine's first worker. */
    this.estimates = new Lane(engine.url, engine.module, false);
    this.estimates.adopt(engine);
    /** The What fits? solve and strategy search: a newer input cancels the running one. */
    this.searches = new Lane(engine.url, engine.module, true);
    this.ready = this.estimates.ready;
    this.loadConfigModule = loadConfigModule;
    /** @type {Promise<Lane> | null} imports and exports, queued; the lane once its module is loaded */
    this.configs = null;
  }

  /**
   * A trainer-config call (`import`, `export`: wasm/config_bindings.cpp); the result parsed. The
   * first call loads the config module; a failed load is tried again by the next call.
   * @param {string} fn
   * @param {unknown[]} args
   * @param {string} [key]  a queued call with the same key is replaced by this one
   * @returns {Promise<{out: any, ms: number}>}
   */
  async config(fn, args, key = fn) {
    if (!this.configs) {
      const configs = this.loadConfigModule().then(({ workerSource, module }) => {
        // A module that did not load (config-engine.wasm unreachable) is fetched again next time.
        module.catch(() => { if (this.configs === configs) this.configs = null; });
        return new Lane(blobUrl(workerSource), module, false);
      });
      configs.catch(() => { if (this.configs === configs) this.configs = null; });
      this.configs = configs;
    }
    const { result, ms } = await (await this.configs).call(fn, args, key);
    return { out: JSON.parse(result), ms };
  }

  /**
   * An estimate-lane call; the result parsed.
   * @param {string} fn
   * @param {unknown[]} args
   * @param {string} [key]  a queued call with the same key is replaced by this one
   * @returns {Promise<{out: any, ms: number}>}
   */
  async estimate(fn, args, key = fn) {
    const { result, ms } = await this.estimates.call(fn, args, key);
    return { out: JSON.parse(result), ms };
  }

  /**
   * A search-lane call (cancels a running one); the result parsed.
   * @param {string} fn
   * @param {unknown[]} args
   * @returns {Promise<{out: any, ms: number}>}
   */
  async search(fn, args) {
    const { result, ms } = await this.searches.call(fn, args, fn);
    return { out: JSON.parse(result), ms };
  }
}

/**
 * Compiles a module: streaming from `wasmUrl` over http, or from base64 bytes (the offline folder).
 * @param {{wasmUrl?: URL, wasmBase64?: string}} from
 * @returns {Promise<WebAssembly.Module>}
 */
export function compileEngine({ wasmUrl, wasmBase64 }) {
  if (wasmBase64) {
    const bytes = Uint8Array.from(atob(wasmBase64), (c) => c.charCodeAt(0));
    return WebAssembly.compile(bytes);
  }
  return compileFromUrl(/** @type {URL} */ (wasmUrl));
}
