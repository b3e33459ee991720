// Work that can wait for the next frame to be painted (the charts): the estimate's numbers reach
// the screen first, and the wait ends in a task of its own after that frame, so that a frame is
// never held back by it.

/**
 * Resolves after the next frame has been painted.
 * @returns {Promise<void>}
 */
export function afterPaint() {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}
