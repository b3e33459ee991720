// Export: the result as a Markdown report (the link, the input document, the breakdown with the
// engine's explanations, warnings) or as JSON ({input, output}), downloaded as a file.
import { t } from './i18n.js';
import { formatBytes, formatCount, yesNo } from './format.js';
import { el } from './dom.js';
import { BREAKDOWN } from './results.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {import('./doc-paths.js').Doc} Doc */

/** @param {unknown} s */
function markdownCell(s) {
  return String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
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
  const lines = ['# trainmem estimate', '', 'Link: ' + link, '', '## Input document', '', '```json', JSON.stringify(doc, null, 2), '```', '',
    '## Per-GPU memory (' + unit + ' = ' + (unit === 'GiB' ? '2^30' : '10^9') + ' bytes)', '',
    '| component | ' + unit + ' | bytes | how |', '|---|---:|---:|---|'];
  for (const [key] of BREAKDOWN) {
    const x = out.explanations.find((/** @type {{component: string}} */ e) => e.component === key);
    lines.push('| ' + markdownCell(t('c_' + key)) + ' | ' + formatBytes(g[key], unit) + ' | ' + formatCount(g[key]) + ' | ' +
      (x ? markdownCell(x.formula + ' (' + x.source + ')') : '') + ' |');
  }
  lines.push('', 'Fits: ' + yesNo(out.fits) + (out.gpu_capacity_bytes ? ' (usable ' + formatBytes(out.gpu_capacity_bytes, unit) + ')' : ''),
    '', 'Trainable parameters: ' + formatCount(out.parameters.trainable) + ' of ' + formatCount(out.parameters.total), '', '## Warnings', '');
  for (const w of out.warnings) lines.push('- `' + w.code + '`: ' + w.message);
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
