// Numbers as the page shows them: bytes in GiB (2^30 B) or GB (10^9 B), always labelled with the
// unit (the engine works in bytes), counts with thousands separators, US dollars. Pure: no DOM.
import { t } from './i18n.js';

/** @typedef {'GiB' | 'GB'} Unit */

/** Bytes per display unit. @type {Record<Unit, number>} */
export const UNIT_BYTES = { GiB: 2 ** 30, GB: 1e9 };

const TWO_DECIMALS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const WHOLE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });

/**
 * "74.51 GiB"; "—" for anything that is not a finite number.
 * @param {unknown} bytes
 * @param {Unit} unit
 * @returns {string}
 */
export function formatBytes(bytes, unit) {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes)) return '—';
  return TWO_DECIMALS.format(bytes / UNIT_BYTES[unit]) + ' ' + unit;
}

/**
 * "8,030,261,248"; "—" for anything that is not a finite number.
 * @param {unknown} n
 * @returns {string}
 */
export function formatCount(n) {
  return typeof n === 'number' && Number.isFinite(n) ? WHOLE.format(n) : '—';
}

/**
 * "1,234.50" (US dollars, no sign); "—" for anything that is not a finite number.
 * @param {unknown} x
 * @returns {string}
 */
export function formatMoney(x) {
  return typeof x === 'number' && Number.isFinite(x) ? TWO_DECIMALS.format(x) : '—';
}

/**
 * yes / no / unknown (null: the engine could not tell) in the current language.
 * @param {boolean | null | undefined} v
 * @returns {string}
 */
export function yesNo(v) {
  return v === true ? t('yes') : v === false ? t('no') : t('unknown');
}

/**
 * "+1.5", "−2", "±0": a signed count.
 * @param {number} n
 * @returns {string}
 */
export function signedCount(n) {
  return (n > 0 ? '+' : n < 0 ? '−' : '±') + formatCount(Math.abs(n));
}

/**
 * "+12.3%": a signed fraction as a percentage.
 * @param {number} x
 * @returns {string}
 */
export function signedPercent(x) {
  return (x > 0 ? '+' : x < 0 ? '−' : '±') + (Math.abs(x) * 100).toFixed(1) + '%';
}

/**
 * "+1.50 GiB": signed bytes.
 * @param {number} x
 * @param {Unit} unit
 * @returns {string}
 */
export function signedBytes(x, unit) {
  return (x > 0 ? '+' : x < 0 ? '−' : '±') + formatBytes(Math.abs(x), unit);
}

const THREE_SIGNIFICANT = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });

/**
 * Seconds as the page shows them: "850 ms", "2.84 s", "3.52 h", "41.2 days" (the engine works in
 * seconds); "—" for anything that is not a finite number.
 * @param {unknown} seconds
 * @returns {string}
 */
export function formatSeconds(seconds) {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return '—';
  if (seconds < 1) return THREE_SIGNIFICANT.format(seconds * 1000) + ' ms';
  if (seconds < 3600) return THREE_SIGNIFICANT.format(seconds) + ' s';
  if (seconds < 2 * 86400) return THREE_SIGNIFICANT.format(seconds / 3600) + ' h';
  return THREE_SIGNIFICANT.format(seconds / 86400) + ' ' + t('days');
}

/**
 * "41.3%": a fraction as a percentage; "—" for anything that is not a finite number.
 * @param {unknown} x
 * @returns {string}
 */
export function formatPercent(x) {
  return typeof x === 'number' && Number.isFinite(x) ? (x * 100).toFixed(1) + '%' : '—';
}

/**
 * "5.15e+17": a large count (FLOPs) in scientific notation; "—" for anything not finite.
 * @param {unknown} x
 * @returns {string}
 */
export function formatScientific(x) {
  return typeof x === 'number' && Number.isFinite(x) ? x.toExponential(2) : '—';
}
