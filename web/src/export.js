// Export: the result as a Markdown report (the link, the input document, the breakdown with the
// engine's explanations, the uncertainty band, step time and cost, checkpoint disk, the "Make it
// fit" changes, warnings) or as JSON ({input, output}), downloaded as a file.
import { t } from './i18n.js';
import { formatBytes, formatCount } from './format.js';
import { suggestionText, verdictWord } from './verdict.js';
import { el } from './dom.js';
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
  const lines = ['# trainmem estimate', '', 'Link: <' + link.replace(/[<>\s]/g, encodeURIComponent) + '>', '', '## Input document', '',
    ...fenced('json', JSON.stringify(doc, null, 2)), '',
    '## Per-GPU memory (' + unit + ' = ' + (unit === 'GiB' ? '2^30' : '10^9') + ' bytes)', '',
    '| component | ' + unit + ' | bytes | how |', '|---|---:|---:|---|'];
  for (const [key] of breakdownRows(g)) {
    const x = out.explanations.find((/** @type {{component: string}} */ e) => e.component === key);
    lines.push('| ' + markdownText(t('c_' + key)) + ' | ' + formatBytes(g[key], unit) + ' | ' + formatCount(g[key]) + ' | ' +
      (x ? markdownText(x.formula + ' (' + x.source + ')') : '') + ' |');
  }
  lines.push('', t('fit') + ': ' + verdictWord(out.verdict) + (out.gpu_capacity_bytes ? ' (usable ' + formatBytes(out.gpu_capacity_bytes, unit) + ')' : ''),
    '', 'Trainable parameters: ' + formatCount(out.parameters.trainable) + ' of ' + formatCount(out.parameters.total), '');
  lines.push(...bandSection(out, unit), ...timeSection(out.time), ...checkpointSection(out.checkpoint, unit), ...suggestionSection(out, unit));
  lines.push('## Warnings', '');
  for (const w of out.warnings) lines.push('- `' + w.code + '`: ' + markdownText(w.message));  // a code is the engine's identifier ([a-z0-9_])
  if (out.warnings.length === 0) lines.push('- none');
  return lines.join('\n') + '\n';
}

/**
 * The peak's uncertainty band (per_gpu.peak_range) and each source that widens it (uncertainty).
 * @param {Record<string, any>} out
 * @param {Unit} unit
 * @returns {string[]}
 */
function bandSection(out, unit) {
  const range = out.per_gpu.peak_range;
  if (!range) return [];
  const lines = ['## Uncertainty band of the peak', '',
    'Peak ' + formatBytes(range.expected, unit) + ', between ' + formatBytes(range.low, unit) + ' and ' + formatBytes(range.high, unit) + '.', ''];
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
  const lines = ['## Step time', '', '- step: ' + time.step_seconds.toFixed(3) + ' s',
    '- tokens per second per GPU: ' + formatCount(Math.round(time.tokens_per_second_per_gpu))];
  if (typeof time.mfu === 'number') lines.push('- MFU: ' + pct(time.mfu) + (typeof time.hfu === 'number' ? ', HFU: ' + pct(time.hfu) : ''));
  if (typeof time.time_to_train_seconds === 'number') lines.push('- time to train: ' + (time.time_to_train_seconds / 3600).toFixed(1) + ' h, ' + time.gpu_hours.toFixed(1) + ' GPU-hours');
  if (time.cost && typeof time.cost.usd === 'number') lines.push('- cost: $' + time.cost.usd.toFixed(2) + ' at $' + time.cost.price_per_gpu_hour_usd + ' per GPU-hour (' + markdownText(time.cost.source) + ')');
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
  const rows = [['bytes_per_checkpoint', 'one checkpoint'], ['largest_rank_bytes', 'largest rank\'s files'], ['inference_weights_bytes', 'weights for inference'],
    ['keep_last_bytes', 'the checkpoints kept']];
  const lines = rows.filter(([key]) => typeof checkpoint[key] === 'number')
    .map(([key, label]) => '- ' + label + ' (`' + key + '`): ' + formatBytes(checkpoint[key], unit));
  return lines.length ? ['## Checkpoint disk', '', ...lines, ''] : [];
}

/**
 * "Make it fit": each single change the engine re-estimated, largest saving first.
 * @param {Record<string, any>} out
 * @param {Unit} unit
 * @returns {string[]}
 */
function suggestionSection(out, unit) {
  if (!out.suggestions || out.suggestions.length === 0) return [];
  const lines = ['## Make it fit', '', '| change | peak ' + unit + ' | saves ' + unit + ' | verdict |', '|---|---:|---:|---|'];
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
