// A .wasm file fetched and compiled as it streams in. A file the server does not give (404, 500) is
// named with its status in words no browser language changes ("engine.wasm: HTTP 404"), instead of
// the browser's own English sentence about compileStreaming.

/**
 * @param {string | URL} url
 * @returns {Promise<WebAssembly.Module>}
 */
export function compileFromUrl(url) {
  return fetch(url).then((response) => {
    if (!response.ok) throw new Error(String(url).split('/').pop() + ': HTTP ' + response.status);
    return WebAssembly.compileStreaming(response);
  });
}
