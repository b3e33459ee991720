// The Pictures section of the result: the memory timeline of one step, the per-pipeline-stage
// (or, with one stage, per-layer) breakdown and the treemap of the peak, each a chart with its
// numbers in a table beneath (the same values, for reading and copying). Drawn only while the
// section is on screen or near it (an IntersectionObserver): an input change made higher up the
// page costs nothing here, and Chart.js (the charts chunk) loads when the section first comes
// into view. A new result is drawn here after the frame that shows its headline numbers.
import { t } from './i18n.js';
import { el, byId, bytesCell, numCell } from './dom.js';
import { formatPercent } from './format.js';
import { LazyChart } from './charts.js';
import { afterPaint } from './after-paint.js';
import { timeline, timelinePoints, pointLabel, stageBars, peakCells, STAGE_STACK } from './pictures-data.js';
import { timelineChart, stageChart, peakTreemap } from './pictures-charts.js';

/** @typedef {import('./format.js').Unit} Unit */
/** @typedef {import('./charts.js').Colors} Colors */
/** @typedef {import('./pictures-data.js').Output} Output */
/** @typedef {{out: Output, unit: Unit, colors: () => Colors}} Shown */

/**
 * A table's head row of column labels (the first a row header).
 * @param {HTMLTableElement} table
 * @param {string[]} labels
 */
function head(table, labels) {
  /** @type {HTMLTableSectionElement} */ (table.tHead).replaceChildren(el('tr', {},
    labels.map((label, i) => el('th', { scope: 'col', class: i ? 'num' : '', text: label }))));
}

/**
 * A view's box: hidden with a note saying why when the output has nothing for it.
 * @param {string} id  the view's id prefix (its box `<id>-box`, note `<id>-none`)
 * @param {boolean} shown
 */
function showView(id, shown) {
  byId(id + '-box').hidden = !shown;
  byId(id + '-none').hidden = shown;
}

export class Pictures {
  /** @param {HTMLElement} section */
  constructor(section) {
    this.section = section;
    this.charts = { timeline: new LazyChart(byId('timeline-chart')), stages: new LazyChart(byId('stage-chart')),
      treemap: new LazyChart(byId('peak-treemap')) };
    /** @type {Shown | null} the latest result, drawn once the section is in view */
    this.latest = null;
    this.inView = false;
    /** @type {Shown | null} the result drawn */
    this.drawn = null;
    new IntersectionObserver((entries) => {
      this.inView = entries.some((e) => e.isIntersecting);
      if (this.inView) this.draw();
    }, { rootMargin: '300px 0px' }).observe(section);
  }

  /**
   * The views for a new result (or none: an error); drawn now if the section is in view.
   * @param {Output | null} out
   * @param {Unit} unit
   * @param {() => Colors} colors  the theme's colours, read when a chart is drawn
   */
  show(out, unit, colors) {
    this.section.hidden = !out;
    this.latest = out ? { out, unit, colors } : null;
    // After the frame that shows the estimate's numbers, like every chart: the section's tables go
    // with their charts.
    if (this.inView) afterPaint().then(() => this.draw());
  }

  /** Draws the latest result if it is not drawn yet. */
  draw() {
    const shown = this.latest;
    if (!shown || shown === this.drawn) return;
    this.drawn = shown;
    const { out, unit } = shown;
    const colors = shown.colors();

    const line = timeline(out);
    showView('timeline', Boolean(line));
    if (line) {
      this.charts.timeline.draw(timelineChart(line, unit, colors));
      this.timelineTable(out, unit);
    }

    const bars = stageBars(out);
    showView('stages', Boolean(bars));
    if (bars) {
      // The key too, so that a language switch words the shown view's title.
      const title = bars.kind === 'layers' ? 'pictures_layers' : 'pictures_stages';
      byId('stages-title').dataset.i18n = title;
      byId('stages-title').textContent = t(title);
      byId('stages-note').textContent = t(bars.kind === 'layers' ? 'pictures_layers_note' : 'pictures_stages_note');
      this.charts.stages.draw(stageChart(bars, unit, colors));
      this.stageTable(out, bars, unit);
    }

    const cells = peakCells(out);
    showView('treemap', Boolean(cells));
    if (cells) {
      this.charts.treemap.draw(peakTreemap(cells, unit, colors));
      const peak = out.per_gpu.peak;
      const table = byId('treemap-table');
      head(table, [t('component'), t('memory'), t('pb_share')]);
      table.tBodies[0].replaceChildren(...cells.map((c) => el('tr', { 'data-component': c.component }, [
        el('th', { scope: 'row', text: c.label }), bytesCell(c.bytes, unit, 'pb-bytes'), numCell(formatPercent(c.bytes / peak)),
      ])));
    }
  }

  /**
   * @param {Output} out
   * @param {Unit} unit
   */
  timelineTable(out, unit) {
    const points = timelinePoints(out) || [];
    const table = byId('timeline-table');
    head(table, [t('tl_axis'), t('tl_allocated'), t('tl_reserved')]);
    table.tBodies[0].replaceChildren(...points.map((p) => el('tr', {}, [
      el('th', { scope: 'row', text: pointLabel(p) }), bytesCell(p.allocated, unit, 'tl-allocated'), bytesCell(p.reserved, unit, 'tl-reserved'),
    ])));
  }

  /**
   * @param {Output} out
   * @param {import('./pictures-data.js').Bars} bars
   * @param {Unit} unit
   */
  stageTable(out, bars, unit) {
    const table = byId('stages-table');
    if (bars.kind === 'layers') {
      head(table, [t('layer_axis'), t('layer_base'), t('layer_growth'), t('tl_allocated')]);
      table.tBodies[0].replaceChildren(...bars.labels.map((label, i) => el('tr', {}, [
        el('th', { scope: 'row', text: label }), bytesCell(bars.values.layer_base[i], unit, 'layer-base'),
        bytesCell(bars.values.layer_growth[i], unit, 'layer-growth'), bytesCell(bars.values.layer_base[i] + bars.values.layer_growth[i], unit, 'layer-allocated'),
      ])));
      return;
    }
    head(table, [t('stage_axis'), ...STAGE_STACK.map((k) => t('c_' + k)), t('c_peak_allocated'), t('stage_peak')]);
    table.tBodies[0].replaceChildren(...out.pipeline_stages.map((/** @type {Record<string, any>} */ s, /** @type {number} */ i) => el('tr', { 'data-stage': String(s.stage) }, [
      el('th', { scope: 'row', text: bars.labels[i] }),
      ...STAGE_STACK.map((k) => bytesCell(s[k], unit, 'st-' + k)),
      bytesCell(s.peak_allocated, unit, 'st-peak_allocated'),
      bytesCell(s.peak, unit, 'st-peak'),
    ])));
  }
}
