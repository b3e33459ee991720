// Local storage: the last state (a link), custom models, preferences and the pinned configuration.
// What comes back is never trusted: parsed defensively here, checked by its reader, shown with
// textContent only. The page works without storage (disabled, full, or private browsing).

/** The keys the page writes. */
export const STORE = { state: 'trainmem.state', customs: 'trainmem.customs', prefs: 'trainmem.prefs', pinned: 'trainmem.pinned' };

/**
 * The stored JSON value, or null when absent or unreadable.
 * @param {string} key
 * @returns {any}
 */
export function load(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || 'null');
  } catch (e) {
    return null;
  }
}

/**
 * What is stored under a key that the page reads whole (its setup): undefined when nothing is (or
 * storage is disabled), the JSON value, or the text itself where it is not JSON (changed outside
 * the page), so that a stored value is never taken for an absent one.
 * @param {string} key
 * @returns {unknown}
 */
export function loadStored(key) {
  let text;
  try {
    text = localStorage.getItem(key);
  } catch (e) {
    return undefined;
  }
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    return text;
  }
}

/**
 * Stores a JSON value; a full or disabled storage is ignored.
 * @param {string} key
 * @param {unknown} value
 */
export function save(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch (e) {
    // storage full or disabled: the page works without it
  }
}

/** Writes a value shortly after the last call (typing), and at once on flush() (the page is hidden). */
export class DelayedSave {
  /**
   * @param {string} key
   * @param {number} delayMs
   */
  constructor(key, delayMs) {
    this.key = key;
    this.delayMs = delayMs;
    /** @type {unknown} */
    this.pending = undefined;
    this.timer = 0;
  }

  /** @param {unknown} value */
  set(value) {
    this.pending = value;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.delayMs);
  }

  flush() {
    if (this.pending !== undefined) save(this.key, this.pending);
    this.pending = undefined;
  }
}
