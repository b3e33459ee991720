// The hosted page's engine, handed from engine-start.js to app.js. engine-start.js (first in
// index.html's head, parser-blocking) starts the engine's first worker before the page is even
// parsed; app.js (at the end of the body, so always after it) takes the worker over through a
// `trainmem:engine-boot` event on the document (no global variable), as chunks hand over their
// exports (chunks.js).

const EVENT = 'trainmem:engine-boot';

/** @typedef {import('./engine-client.js').EngineBoot} EngineBoot */

/** Why app.js has no engine: engine-start.js did not run (it failed to load). */
export class EngineStartMissing extends Error {
  constructor() {
    super('engine-start.js did not run: the engine was not started');
  }
}
/** @typedef {{boot?: EngineBoot, error?: unknown}} Handover */

/**
 * engine-start.js: starts the engine and offers it (or why it could not start) to whoever asks.
 * @param {() => EngineBoot} boot
 */
export function offerEngine(boot) {
  /** @type {Handover} */
  const offer = {};
  try {
    offer.boot = boot();
  } catch (e) {
    offer.error = e;
  }
  document.addEventListener(EVENT, (event) => {
    Object.assign(/** @type {CustomEvent<Handover>} */ (event).detail, offer);
  });
}

/**
 * app.js: the engine engine-start.js started; rejects when it could not start it, or when that
 * script did not run (it failed to load: it runs before app.js or not at all).
 * @returns {Promise<EngineBoot>}
 */
export function takeEngine() {
  /** @type {Handover} */
  const ask = {};
  document.dispatchEvent(new CustomEvent(EVENT, { detail: ask }));
  if (ask.boot) return Promise.resolve(ask.boot);
  if (ask.error) return Promise.reject(ask.error instanceof Error ? ask.error : new Error(String(ask.error)));
  return Promise.reject(new EngineStartMissing());
}
