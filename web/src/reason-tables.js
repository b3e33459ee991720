// An engine reason given in English, worded in another language from two tables: the exact
// sentences, then patterns for the ones that carry a value. Used by the import's notes
// (import-note-reasons.js) and the export's not-exported fields (export-reasons.js).

/** @typedef {[RegExp, (m: RegExpExecArray) => string | null][]} ReasonPatterns  a pattern's wording may be null: none after all */

/**
 * The reason's wording, or null when neither table has it.
 * @param {Record<string, string>} exact  English sentence -> wording
 * @param {ReasonPatterns} patterns
 * @param {string} reason  the engine's English reason
 * @returns {string | null}
 */
export function wordReason(exact, patterns, reason) {
  if (Object.prototype.hasOwnProperty.call(exact, reason)) return exact[reason];
  for (const [pattern, word] of patterns) {
    const m = pattern.exec(reason);
    if (m) return word(m);
  }
  return null;
}
