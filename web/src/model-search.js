// Finding a model preset from what people type or paste: words of its name, family or size
// ("llama 70b", "qwen moe"), or a Hugging Face reference ("org/name", "https://huggingface.co/org/name",
// ".../tree/main", ".../blob/main/config.json"), matched against the catalog's hf_id with no network.
// Pure: no DOM.

/** @typedef {{id: string, display_name: string, family: string, hf_id: string, hf_aliases?: string[], model_type: string, parameters: number}} ModelEntry */

const HF_URL = /^(?:https?:\/\/)?(?:www\.)?(?:huggingface\.co|hf\.co)\/([^/\s?#]+)\/([^/\s?#]+)(?:[/?#].*)?$/i;
const HF_ID = /^([A-Za-z0-9][\w.-]*)\/([\w.-]+)$/;
// Repository-name suffixes that name a fine-tune or a format of the same architecture.
const VARIANT_SUFFIX = /(-(instruct|chat|hf|it|pt|base))+$/i;

/**
 * "org/name" from a Hugging Face reference, or null.
 * @param {string} text
 * @returns {string | null}
 */
export function parseHfReference(text) {
  const t = String(text || '').trim();
  const m = HF_URL.exec(t) || HF_ID.exec(t);
  return m ? m[1] + '/' + m[2] : null;
}

/**
 * The preset whose hf_id, or one of its hf_aliases (a rename the Hub redirects), is this Hugging Face
 * reference (case-insensitive), or null. Only the same repository counts: a fine-tune or another
 * size may change the config, so it is never guessed.
 * @param {ModelEntry[]} models
 * @param {string} text
 * @returns {ModelEntry | null}
 */
export function presetForHfReference(models, text) {
  const id = parseHfReference(text);
  if (!id) return null;
  const lower = id.toLowerCase();
  return models.find((m) => [m.hf_id, ...(m.hf_aliases || [])].some((name) => name && name.toLowerCase() === lower)) || null;
}

/**
 * A preset worth naming beside a reference that is not in the catalog: the one whose repository name
 * is the reference's after dropping a variant suffix (…-Instruct of a base preset), or null. The page
 * names it as a hint and selects nothing: the user's config.json decides.
 * @param {ModelEntry[]} models
 * @param {string} text
 * @returns {ModelEntry | null}
 */
export function relatedPreset(models, text) {
  const id = parseHfReference(text);
  if (!id) return null;
  /** @param {string} s */
  const stem = (s) => (s.split('/').pop() || '').toLowerCase().replace(VARIANT_SUFFIX, '');
  const same = models.filter((m) => m.hf_id && stem(m.hf_id) === stem(id));
  return same.length === 1 ? same[0] : null;
}

/**
 * "8.0B", "494M": the catalog's parameter count in words people search by.
 * @param {number} parameters
 * @returns {string}
 */
export function sizeLabel(parameters) {
  if (!(parameters > 0)) return '';
  const millions = Math.round(parameters / 1e6);
  if (millions < 1000) return millions + 'M';  // 999.9M rounds to 1000M: written as 1.0B
  return (parameters / 1e9).toFixed(parameters >= 1e11 ? 0 : 1) + 'B';
}

/** @param {ModelEntry} m */
function haystack(m) {
  const size = sizeLabel(m.parameters).toLowerCase();
  return [m.id, m.display_name, m.family, m.hf_id, m.model_type, size, size.replace(/\.\d/, '')].join(' ').toLowerCase();
}

/** @param {string} s */
const compact = (s) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The words of a preset's names: "Qwen2.5-7B" -> qwen2.5, 7b (split at spaces, "-", "_" and "/";
 * dots stay, so a version is one word).
 * @param {ModelEntry} m
 */
function tokens(m) {
  return [m.id, m.display_name, m.hf_id].join(' ').toLowerCase().split(/[\s\-_/]+/).filter(Boolean);
}

/**
 * Whether a bare number ("70") or a size ("70b", "1.5b", "494m") is the preset's size: its size word
 * ("70b" in Llama-3.1-70B) or its size label ("8.0B", also as "8B"). A number without a unit is read
 * in billions; it still matches a version by the other rules ("llama 3").
 * @param {ModelEntry} m
 * @param {string} word  lower case
 */
function sizeWord(m, word) {
  if (!/^\d+(\.\d+)?[bm]?$/.test(word)) return false;
  const size = /[bm]$/.test(word) ? word : word + 'b';
  const label = sizeLabel(m.parameters).toLowerCase();
  return tokens(m).includes(size) || label === size || label.replace(/\.0(?=[bm]$)/, '') === size;
}

/**
 * How well one query word names a preset: 3 a whole word of its names or its size ("7b" and "7"
 * are Qwen2.5-7B's size, not a piece of 72.7B), 2 the start of its name without separators ("llama3" -> Llama-3-8B),
 * 1 anywhere in what it is known by, 0 not at all.
 * @param {ModelEntry} m
 * @param {string} word  lower case
 */
function wordScore(m, word) {
  if (tokens(m).includes(word) || sizeWord(m, word)) return 3;
  const w = compact(word);
  if (w && (compact(m.id).startsWith(w) || compact(m.display_name).startsWith(w))) return 2;
  const h = haystack(m);
  return h.includes(word) || (w !== '' && compact(h).includes(w)) ? 1 : 0;
}

/**
 * Presets matching every word of the query (in their name, family, hf_id or size, with or without
 * separators: "llama3" finds Llama 3), best match first: whole words before pieces of words, then
 * catalog order. A search box's Enter picks the first.
 * @param {ModelEntry[]} models
 * @param {string} query
 * @returns {ModelEntry[]}
 */
export function filterModels(models, query) {
  const ref = presetForHfReference(models, query);
  if (ref) return [ref];
  const words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return models.slice();
  const scored = [];
  for (const [index, m] of models.entries()) {
    let score = 0;
    for (const w of words) {
      const s = wordScore(m, w);
      if (s === 0) { score = -1; break; }
      score += s;
    }
    if (score > 0) scored.push({ m, score, index });
  }
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.map((x) => x.m);
}
