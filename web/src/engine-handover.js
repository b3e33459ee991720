// The hosted page's engine, handed from engine-start.js to app.js. engine-start.js (an async script
// in index.html's head) starts the engine's first worker before app.js has even loaded; app.js takes
// it over through `trainmem:engine-boot` events on the document (no global variable), as chunks hand
// over their exports (chunks.js), whichever of the two scripts runs first.

const EVENT = 'trainmem:engine-boot';

/** @typedef {import('./engine-client.js').EngineBoot} EngineBoot */
/** @typedef {{boot?: EngineBoot, error?: unknown, offered?: boolean}} Handover */

/**
 * engine-start.js: offers the started engine (or why it could not start) to app.js, now and to a
 * later ask.
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
  document.dispatchEvent(new CustomEvent(EVENT, { detail: { ...offer, offered: true } }));
}

/**
 * app.js: the engine engine-start.js started, now or once that script has run; rejects when it could
 * not start the engine or `script` (its element) fails to load or runs without offering one.
 * @param {HTMLScriptElement | null} script
 * @returns {Promise<EngineBoot>}
 */
export function takeEngine(script) {
  return new Promise((resolve, reject) => {
    const take = (/** @type {Handover} */ offer) => {
      if (offer.boot) resolve(offer.boot);
      else reject(offer.error instanceof Error ? offer.error : new Error(String(offer.error)));
    };
    /** @type {Handover} */
    const ask = {};
    document.dispatchEvent(new CustomEvent(EVENT, { detail: ask }));
    if (ask.boot || ask.error) {
      take(ask);
      return;
    }
    document.addEventListener(EVENT, (event) => {
      const offer = /** @type {CustomEvent<Handover>} */ (event).detail;
      if (offer.offered) take(offer);
    });
    if (!script) {
      reject(new Error('the page has no engine-start.js'));
      return;
    }
    script.addEventListener('error', () => reject(new Error('engine-start.js could not be loaded')));
    // A script's load event follows its run: an offer made while it ran has settled the promise.
    script.addEventListener('load', () => reject(new Error('engine-start.js did not start the engine')));
  });
}
