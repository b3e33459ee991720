// The engine's errors ({code, field, message}) in a list and next to the control of the field each
// names, with aria-invalid and aria-describedby; the closed <details> around a control opens.
import { el } from './dom.js';

/** @typedef {{code: string, field?: string, message: string}} EngineError */

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
  for (let f = field; f; f = f.includes('.') ? f.slice(0, f.lastIndexOf('.')) : '') {
    const c = /** @type {HTMLElement | null} */ (document.querySelector('[data-path="' + CSS.escape(f) + '"]'));
    if (c) return c;
  }
  return null;
}

/**
 * Errors of one source ('estimate': the form, or 'solve': the What fits? panel) in its list and
 * next to their controls; the other source's marks stay.
 * @param {EngineError[]} errors
 * @param {'estimate' | 'solve'} scope
 * @param {HTMLElement} list
 */
export function showErrors(errors, scope, list) {
  for (const e of document.querySelectorAll('.field-error[data-scope="' + scope + '"]')) e.remove();
  for (const c of document.querySelectorAll('[data-invalid="' + scope + '"]')) {
    c.removeAttribute('aria-invalid');
    c.removeAttribute('aria-describedby');
    c.removeAttribute('data-invalid');
  }
  list.replaceChildren(...errors.map((e) => el('li', {}, [el('code', { text: e.field || e.code }), document.createTextNode(' ' + e.message)])));
  errors.forEach((e, i) => {
    const field = e.field || '';
    if (scope === 'solve' && !field.startsWith('solve.')) return;  // the form's fields are the estimate's to mark
    const c = controlFor(field);
    if (!c || c.dataset.invalid) return;
    const id = 'field-error-' + scope + '-' + i;
    c.dataset.invalid = scope;
    c.setAttribute('aria-invalid', 'true');
    c.setAttribute('aria-describedby', ((c.getAttribute('aria-describedby') || '') + ' ' + id).trim());
    c.after(el('p', { class: 'field-error', id, text: e.message, 'data-testid': 'field-error', 'data-scope': scope }));
    for (let d = c.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) d.open = true;
  });
}
