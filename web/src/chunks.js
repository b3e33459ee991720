// Code and data the first estimate does not need, loaded on first use: Chart.js ("charts"), the
// accuracy table ("accuracy") and the trainer config parsers ("config-files"). Each chunk is a classic script beside index.html (classic scripts load
// from file:// too, where module scripts and fetch do not) that hands its exports over with a
// `trainmem:chunk` event on the document ({name, exports}); no global variable is involved.

/** @type {Map<string, Promise<any>>} */
const loading = new Map();

/**
 * The chunk's exports, loading it on the first call.
 * @param {'charts' | 'accuracy' | 'config-files'} name
 * @returns {Promise<any>}
 */
export function loadChunk(name) {
  let p = loading.get(name);
  if (!p) {
    p = new Promise((resolve, reject) => {
      /** @param {Event} event */
      const take = (event) => {
        const detail = /** @type {CustomEvent} */ (event).detail;
        if (!detail || detail.name !== name) return;
        document.removeEventListener('trainmem:chunk', take);
        resolve(detail.exports);
      };
      document.addEventListener('trainmem:chunk', take);
      const script = document.createElement('script');
      script.src = 'chunk-' + name + '.js';
      script.onerror = () => {
        document.removeEventListener('trainmem:chunk', take);
        loading.delete(name);  // a failed load (a dropped connection) is tried again on the next use
        script.remove();
        reject(new Error('could not load chunk-' + name + '.js'));
      };
      document.head.append(script);
    });
    loading.set(name, p);
  }
  return p;
}
