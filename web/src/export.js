// Export: the result as a Markdown report (the link, the input document, the breakdown with the
// engine's explanations, the uncertainty band, step time and cost, checkpoint disk, the "Make it
// fit" changes, warnings) or as JSON ({input, output}), downloaded as a file.
import { t } from './i18n.js';
import { formatBytes, formatCount } from './format.js';
import { comparedBand, suggestionText, verdictWord } from './verdict.js';
import { el } from './dom.js';
import { messageText } from './messages.js';
import { breakdownRows } from './results.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {import('./doc-paths.js').Doc} Doc */

/**
 * Text as Markdown that shows it as written: it may come from the input (an engine message naming a
 * config's model_type), so HTML's characters become entities and Markdown's are backslash-escaped
 * (CommonMark 0.31 "Backslash escapes"); line breaks become spaces (a table cell, a list item).
 * @param {unknown} s
 */
export function markdownText(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/[\\`*_{}[\]()#+!|~]/g, '\\$&').replace(/\s*\n\s*/g, ' ');
}

/**
 * A fenced code block that no backtick run in the text can close.
 * @param {string} lang
 * @param {string} text
 */
function fenced(lang, text) {
  const longest = Math.max(0, ...(text.match(/`+/g) || []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [fence + lang, text, fence];
}

/**
 * @param {string} link
 * @param {Doc} doc  the input document
 * @param {Record<string, any>} out  its output, explanations included
 * @param {Unit} unit
 * @returns {string}
 */
export function markdown(link, doc, out, unit) {
  const g = out.per_gpu;
  // The link as an autolink: it holds no "<", ">" or space (percent-encoded), which would end it.
  const lines = ['# ' + t('md_title'), '', t('md_link') + ': <' + link.replace(/[<>\s]/g, encodeURIComponent) + '>', '', '## ' + t('md_input'), '',
    ...fenced('json', JSON.stringify(doc, null, 2)), '',
    '## ' + t('md_per_gpu', { unit, bytes: unit === 'GiB' ? '2^30' : '10^9' }), '',
    '| ' + t('md_component') + ' | ' + unit + ' | ' + t('md_bytes') + ' | ' + t('md_how') + ' |', '|---|---:|---:|---|'];
  for (const [key] of breakdownRows(g)) {
    const x = out.explanations.find((/** @type {{component: string}} */ e) => e.component === key);
    lines.push('| ' + markdownText(t('c_' + key)) + ' | ' + formatBytes(g[key], unit) + ' | ' + formatCount(g[key]) + ' | ' +
      (x ? markdownText(x.formula + ' (' + x.source + ')') : '') + ' |');
  }
  lines.push('', t('fit') + ': ' + verdictWord(out.verdict) + (out.gpu_capacity_bytes ? ' (' + t('md_usable', { bytes: formatBytes(out.gpu_capacity_bytes, unit) }) + ')' : ''),
    '', t('md_trainable', { n: formatCount(out.parameters.trainable), total: formatCount(out.parameters.total) }), '');
  lines.push(...bandSection(out, unit), ...timeSection(out.time), ...checkpointSection(out.checkpoint, unit), ...suggestionSection(out, unit));
  lines.push('## ' + t('md_warnings'), '');
  // A code is the engine's identifier ([a-z0-9_]); the message in the page's language and unit.
  for (const w of out.warnings) lines.push('- `' + w.code + '`: ' + markdownText(messageText(w, undefined, unit)));
  if (out.warnings.length === 0) lines.push('- ' + t('md_none'));
  return lines.join('\n') + '\n';
}

/**
 * The uncertainty band the verdict compares (per_gpu.peak_range, or peak_reserved_range against a
 * usable figure) and each source that widens it (uncertainty).
 * @param {Record<string, any>} out
 * @param {Unit} unit
 * @returns {string[]}
 */
function bandSection(out, unit) {
  const { reserved, range } = comparedBand(out);
  if (!range) return [];
  const lines = ['## ' + t('md_band'), '',
    t(reserved ? 'md_band_line_reserved' : 'md_band_line', { expected: formatBytes(range.expected, unit), low: formatBytes(range.low, unit), high: formatBytes(range.high, unit) }), ''];
  for (const u of out.uncertainty || []) {
    lines.push('- `' + u.source + '`: ' + formatBytes(u.bytes, unit) + (u.alternative ? ' (' + markdownText(u.alternative) + ')' : ''));
  }
  return [...lines, ''];
}

/**
 * Step time, throughput, MFU and the run's time and cost (time), when the engine gives them.
 * @param {Record<string, any> | null | undefined} time
 * @returns {string[]}
 */
function timeSection(time) {
  if (!time || typeof time.step_seconds !== 'number') return [];
  /** @param {number} x */
  const pct = (x) => (x * 100).toFixed(1) + ' %';
  const lines = ['## ' + t('md_time'), '', '- ' + t('md_step') + ': ' + time.step_seconds.toFixed(3) + ' s',
    '- ' + t('md_tokens') + ': ' + formatCount(Math.round(time.tokens_per_second_per_gpu))];
  if (typeof time.mfu === 'number') lines.push('- MFU: ' + pct(time.mfu) + (typeof time.hfu === 'number' ? ', HFU: ' + pct(time.hfu) : ''));
  if (typeof time.time_to_train_seconds === 'number') lines.push('- ' + t('md_time_to_train', { h: (time.time_to_train_seconds / 3600).toFixed(1), gpu_hours: time.gpu_hours.toFixed(1) }));
  if (time.cost && typeof time.cost.usd === 'number') lines.push('- ' + t('md_cost', { usd: time.cost.usd.toFixed(2), price: time.cost.price_per_gpu_hour_usd, source: markdownText(time.cost.source) }));
  return [...lines, ''];
}

/**
 * Checkpoint disk (checkpoint), the sizes the engine gives.
 * @param {Record<string, any> | null | undefined} checkpoint
 * @param {Unit} unit
 * @returns {string[]}
 */
function checkpointSection(checkpoint, unit) {
  if (!checkpoint) return [];
  /** @type {[string, string][]} */
  const rows = [['bytes_per_checkpoint', 'md_one_checkpoint'], ['largest_rank_bytes', 'md_largest_rank'], ['inference_weights_bytes', 'md_inference_weights'],
    ['keep_last_bytes', 'md_kept']];
  const lines = rows.filter(([key]) => typeof checkpoint[key] === 'number')
    .map(([key, label]) => '- ' + t(label) + ' (`' + key + '`): ' + formatBytes(checkpoint[key], unit));
  return lines.length ? ['## ' + t('md_checkpoint'), '', ...lines, ''] : [];
}

/**
 * "Make it fit": each single change the engine re-estimated, largest saving first.
 * @param {Record<string, any>} out
 * @param {Unit} unit
 * @returns {string[]}
 */
function suggestionSection(out, unit) {
  if (!out.suggestions || out.suggestions.length === 0) return [];
  const lines = ['## ' + t('md_fit'), '', '| ' + t('md_change') + ' | ' + t('md_peak', { unit }) + ' | ' + t('md_saves', { unit }) + ' | ' + t('md_verdict') + ' |',
    '|---|---:|---:|---|'];
  for (const s of out.suggestions) {
    lines.push('| ' + markdownText(suggestionText(s)) + ' `' + JSON.stringify(s.change).replace(/`/g, '').replace(/\|/g, '\\|') + '` | ' + formatBytes(s.peak, unit) + ' | ' +
      formatBytes(s.saved_bytes, unit) + ' | ' + verdictWord(s.verdict) + ' |');
  }
  return [...lines, ''];
}

/**
 * Offers text as a file download.
 * @param {string} name
 * @param {string} type  MIME type
 * @param {string} text
 */
export function download(name, type, text) {
  const a = el('a', { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
