// Export: the result as a Markdown report (the link, the input document, the breakdown with the
// engine's explanations, warnings) or as JSON ({input, output}), downloaded as a file.
import { t } from './i18n.js';
import { formatBytes, formatCount } from './format.js';
import { verdictWord } from './verdict.js';
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
    '', 'Trainable parameters: ' + formatCount(out.parameters.trainable) + ' of ' + formatCount(out.parameters.total), '', '## Warnings', '');
  for (const w of out.warnings) lines.push('- `' + w.code + '`: ' + markdownText(w.message));  // a code is the engine's identifier ([a-z0-9_])
  if (out.warnings.length === 0) lines.push('- none');
  return lines.join('\n') + '\n';
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
