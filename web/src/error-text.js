// The words of a thrown value, for a status line or a message sent between threads.

/**
 * An error's message (an Error, or any object with a non-empty string `message`, as some engine
 * loaders throw); anything else as a string.
 * @param {unknown} e
 * @returns {string}
 */
export function errorText(e) {
  const message = e !== null && typeof e === 'object' ? /** @type {{message?: unknown}} */ (e).message : undefined;
  return typeof message === 'string' && message ? message : String(e);
}
