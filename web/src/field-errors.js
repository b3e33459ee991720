// The engine's errors ({code, field, message, params}) in a list and next to the control of the
// field each names, with aria-invalid and aria-describedby; the closed <details> around a control
// opens. Messages are worded in the page's language (messages.js); each keeps its code in data-code.
import { el } from './dom.js';
import { messageAfterField, messageText } from './messages.js';

/** @typedef {{code: string, field?: string, message: string, params?: Record<string, unknown>}} EngineError */

const PICKERS = ['rlhf.reward.model', 'rlhf.critic.model', 'model'];

/**
 * The control for a document field (a model field: its picker, or its parameter count input).
 * @param {string} field
 * @returns {HTMLElement | null}
 */
function controlFor(field) {
  for (const picker of PICKERS) {
    if (field === picker + '.num_parameters') return document.querySelector('[data-path="' + field + '"]');
    if (field === picker || field.startsWith(picker + '.')) return document.querySelector('[data-picker="' + picker + '"]');
  }
  // An entry of a list (multimodal.image_size[0], lora.target_modules[2]) is its list's control.
  for (let f = field.replace(/\[\d+\]/g, ''); f; f = f.includes('.') ? f.slice(0, f.lastIndexOf('.')) : '') {
    const c = /** @type {HTMLElement | null} */ (document.querySelector('[data-path="' + CSS.escape(f) + '"]'));
    if (c) return c;
  }
  return null;
}

/**
 * The words a control is labelled with on the page (in its language), or '' without a label.
 * @param {HTMLElement | null} control
 */
function labelOf(control) {
  const label = control && control.closest('label');
  const words = label && label.querySelector('span');
  return words ? (words.textContent || '').trim() : '';
}

/**
 * Errors of one source ('estimate': the form, or 'solve': the What fits? panel) in its list and
 * next to their controls; the other source's marks stay.
 * @param {EngineError[]} errors
 * @param {'estimate' | 'solve'} scope
 * @param {HTMLElement} list
 * @param {import('./format.js').Unit} [unit]  the unit byte counts are said in
 */
export function showErrors(errors, scope, list, unit = /** @type {import('./format.js').Unit} */ ('GiB')) {
  for (const e of document.querySelectorAll('.field-error[data-scope="' + scope + '"]')) e.remove();
  for (const c of document.querySelectorAll('[data-invalid="' + scope + '"]')) {
    c.removeAttribute('aria-invalid');
    c.removeAttribute('aria-describedby');
    c.removeAttribute('data-invalid');
  }
  list.replaceChildren(...errors.map((e) => {
    const label = e.field ? labelOf(controlFor(e.field)) : '';
    return el('li', { 'data-code': e.code }, [...(label ? [el('span', { class: 'field-label', text: label + ' ' })] : []),
      el('code', { text: e.field || e.code }),
      el('span', { class: 'message', text: ' ' + (e.field ? messageAfterField(e, unit) : messageText(e, undefined, unit)) })]);
  }));
  errors.forEach((e, i) => {
    const field = e.field || '';
    if (scope === 'solve' && !field.startsWith('solve.')) return;  // the form's fields are the estimate's to mark
    const c = controlFor(field);
    if (!c || c.dataset.invalid) return;
    const id = 'field-error-' + scope + '-' + i;
    c.dataset.invalid = scope;
    c.setAttribute('aria-invalid', 'true');
    c.setAttribute('aria-describedby', ((c.getAttribute('aria-describedby') || '') + ' ' + id).trim());
    c.after(el('p', { class: 'field-error', id, text: messageText(e, undefined, unit), 'data-testid': 'field-error', 'data-scope': scope, 'data-code': e.code }));
    for (let d = c.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) d.open = true;
  });
}
