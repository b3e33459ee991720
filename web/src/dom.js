// Building the page's elements. Text from the engine, links, storage or the user goes in with
// textContent only, never as HTML.
import { formatBytes } from './format.js';

/** @typedef {import('./format.js').Unit} Unit */

/**
 * The element with this id (the page's fixed structure, index.html).
 * @param {string} id
 * @returns {any}
 */
export const byId = (id) => document.getElementById(id);

/**
 * A new element: props `text` (textContent), `class`, `data-*` and `aria-*` attributes, other
 * properties set as given; children appended.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [props]
 * @param {(Node | string)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, props, children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else if (k.startsWith('data-') || k.startsWith('aria-')) e.setAttribute(k, v);
    else /** @type {any} */ (e)[k] = v;
  }
  for (const c of children || []) e.append(c);
  return e;
}

/**
 * Sets an attribute, or removes it for null, only where that changes it: a write of the value an
 * attribute already holds still makes the browser recompute the element's style.
 * @param {Element} e
 * @param {string} name
 * @param {string | null} value
 */
export function setAttr(e, name, value) {
  if (value === null) {
    if (e.hasAttribute(name)) e.removeAttribute(name);
  } else if (e.getAttribute(name) !== value) {
    e.setAttribute(name, value);
  }
}

/**
 * Sets an element's text only where that changes it (a same-text write replaces its text node).
 * @param {Node} e
 * @param {string} text
 */
export function setText(e, text) {
  if (e.textContent !== text) e.textContent = text;
}

/**
 * A table cell with bytes in the unit and the exact byte count in data-bytes (for tests and copying).
 * @param {unknown} bytes
 * @param {Unit} unit
 * @param {string} [testid]
 * @returns {HTMLTableCellElement}
 */
export function bytesCell(bytes, unit, testid) {
  const td = el('td', { class: 'num', text: formatBytes(bytes, unit) });
  if (typeof bytes === 'number') td.setAttribute('data-bytes', String(bytes));
  if (testid) td.setAttribute('data-testid', testid);
  return td;
}

/**
 * A right-aligned text cell, optionally with a test id and a machine-readable data-value.
 * @param {string} text
 * @param {string} [testid]
 * @param {unknown} [value]
 * @returns {HTMLTableCellElement}
 */
export function numCell(text, testid, value) {
  const td = el('td', { class: 'num', text });
  if (testid) td.setAttribute('data-testid', testid);
  if (value !== undefined && value !== null) td.setAttribute('data-value', String(value));
  return td;
}

/**
 * Sets a cell to bytes in the unit, keeping data-bytes in step.
 * @param {HTMLElement} td
 * @param {unknown} bytes
 * @param {Unit} unit
 */
export function setBytes(td, bytes, unit) {
  td.textContent = formatBytes(bytes, unit);
  if (typeof bytes === 'number') td.setAttribute('data-bytes', String(bytes));
  else td.removeAttribute('data-bytes');
}

/**
 * Rows of "label | value" (a value cell, or text for a right-aligned cell) with an optional row class.
 * @param {HTMLTableSectionElement} tbody
 * @param {[string, HTMLElement | string, string?][]} rows
 */
export function fillTable(tbody, rows) {
  tbody.replaceChildren(...rows.map(([label, value, cls]) => {
    const cell = typeof value === 'string' ? el('td', { class: 'num', text: value }) : value;
    return el('tr', { class: cls || '' }, [el('th', { scope: 'row', text: label }), cell]);
  }));
}
