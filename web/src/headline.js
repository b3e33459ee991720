// The sticky headline (peak and verdict, style.css) never hides the control being used: a control
// that takes the focus while it lies under the headline is scrolled to just below it. (Chromium
// does not apply scroll-padding when focus lands on a control that is partly on screen.)

const GAP = 8;  // px between the headline and the control

/**
 * Keeps focused controls clear of the headline.
 * @param {HTMLElement} headline
 */
export function keepFocusClear(headline) {
  document.addEventListener('focusin', (event) => {
    const target = /** @type {Element} */ (event.target);
    if (headline.hidden || !(target instanceof HTMLElement) || headline.contains(target)) return;
    const h = headline.getBoundingClientRect();
    const r = target.getBoundingClientRect();
    const overlaps = r.top < h.bottom && r.bottom > h.top && r.left < h.right && r.right > h.left;
    if (overlaps) window.scrollBy(0, r.top - h.bottom - GAP);
  });
}
