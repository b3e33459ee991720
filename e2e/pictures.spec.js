// The Pictures views (web/src/pictures.js) show the CLI's numbers for the same document: the
// timeline of one step (per_gpu.timeline) with the device line, the per-stage bars
// (pipeline_stages) or, with one stage, what each layer's forward adds, and the treemap of the
// peak (per_gpu.peak_breakdown), in the unit chosen, hosted and from file://. The headline (peak
// and verdict) stays in view on a long scroll and covers no input.
const { test, expect, cli } = require('./fixtures');
const Render = require('../web/src/format.js');

const GiB = 2 ** 30;
const PP2 = '#v3:m=llama-3.1-8b&me=full&b=1&s=4096&n=8&pp=2&g=h100-sxm-80gb';

// A chart's labels and datasets as Chart.js holds them, once the section has been scrolled into
// view and the chart drawn.
async function chartData(page, testid) {
  await page.locator('#pictures').scrollIntoViewIfNeeded();
  const handle = await page.waitForFunction((id) => {
    const chart = window.__Chart && window.__Chart.getChart(document.querySelector(`[data-testid="${id}"]`));
    return chart ? { type: chart.config.type, labels: chart.data.labels,
      sets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data, tree: d.tree, stack: d.stack })) } : null;
  }, testid);
  return handle.jsonValue();
}

const bytesOf = async (page, testid) => (await page.getByTestId(testid).evaluateAll((tds) => tds.map((td) => Number(td.dataset.bytes))));

for (const where of ['http', 'offline']) {
  test(`the timeline, per-layer and treemap views show the CLI's numbers (${where})`, async ({ app, page }) => {
    await app.open(where);
    const doc = await app.inputDoc();
    const want = cli(doc);
    const g = want.per_gpu;
    const points = g.timeline;
    const layers = points.filter((p) => p.phase === 'forward').length;
    // load, forward L1..Ln, the loss forward and backward (one stage: it is the last), backward Ln..L1, optimizer step
    expect(points.length).toBe(2 * layers + 4);

    // The timeline: allocated and reserved per point, in GiB, its maximum the CLI's peak_allocated;
    // the device line at gpu_capacity_bytes.
    const line = await chartData(page, 'timeline-chart');
    expect(line.type).toBe('line');
    expect(line.labels.length).toBe(points.length);
    expect(line.labels[0]).toBe('load');
    expect(line.labels[1]).toBe('forward L1');
    expect(line.labels[layers + 1]).toBe('loss (forward)');
    expect(line.labels[points.length - 2]).toBe('backward L1');
    expect(line.labels[points.length - 1]).toBe('optimizer step');
    expect(line.sets[0].data).toEqual(points.map((p) => p.allocated / GiB));
    expect(line.sets[1].data).toEqual(points.map((p) => p.reserved / GiB));
    expect(Math.max(...line.sets[0].data)).toBe(g.peak_allocated / GiB);
    expect(Math.max(...line.sets[1].data)).toBe(g.peak_reserved / GiB);
    expect(line.sets[2].data).toEqual(points.map(() => want.gpu_capacity_bytes / GiB));
    // Its table: the same bytes, the largest allocated shown as the peak allocated is shown.
    expect(await bytesOf(page, 'tl-allocated')).toEqual(points.map((p) => p.allocated));
    expect(await bytesOf(page, 'tl-reserved')).toEqual(points.map((p) => p.reserved));
    await expect(page.getByTestId('tl-allocated').filter({ hasText: Render.formatBytes(g.peak_allocated, 'GiB') }).first()).toBeAttached();

    // One stage: a bar per layer's forward point, split at layer 1's point.
    expect(want.pipeline_stages.length).toBe(1);
    const forward = points.filter((p) => p.phase === 'forward');
    const bars = await chartData(page, 'stage-chart');
    expect(bars.labels).toEqual(forward.map((p) => 'L' + p.layer));
    expect(bars.sets[0].data).toEqual(forward.map(() => forward[0].allocated / GiB));
    expect(bars.sets[1].data).toEqual(forward.map((p) => (p.allocated - forward[0].allocated) / GiB));
    expect(await bytesOf(page, 'layer-allocated')).toEqual(forward.map((p) => p.allocated));
    await expect(page.locator('#stages-title')).toHaveText('Per layer');

    // The treemap: one cell per component of the peak, the cells summing to the CLI's peak.
    const tree = await chartData(page, 'peak-treemap');
    expect(tree.type).toBe('treemap');
    const nonzero = g.peak_breakdown.filter((c) => c.bytes > 0);
    expect(tree.sets[0].tree.map((c) => c.component).sort()).toEqual(nonzero.map((c) => c.component).sort());
    expect(tree.sets[0].tree.reduce((s, c) => s + c.value, 0)).toBeCloseTo(g.peak / GiB, 9);
    const cells = await bytesOf(page, 'pb-bytes');
    expect(cells.reduce((a, b) => a + b, 0)).toBe(g.peak);

    // In GB: the same values divided by 10^9.
    await page.getByTestId('unit').selectOption('GB');
    await app.settled();
    await expect.poll(async () => (await chartData(page, 'timeline-chart')).sets[2].data[0]).toBe(want.gpu_capacity_bytes / 1e9);
    const inGb = await chartData(page, 'timeline-chart');
    expect(Math.max(...inGb.sets[0].data)).toBe(g.peak_allocated / 1e9);
    expect(inGb.sets[2].data[0]).toBe(want.gpu_capacity_bytes / 1e9);
    await expect(page.getByTestId('tl-allocated').filter({ hasText: Render.formatBytes(g.peak_allocated, 'GB') }).first()).toBeAttached();
  });
}

test('pipeline parallelism 2: one stacked bar per stage, each equal to the CLI\'s pipeline_stages', async ({ app, page }) => {
  await app.open('http', PP2);
  const doc = await app.inputDoc();
  expect(doc.parallel.pipeline_parallel_size).toBe(2);
  const want = cli(doc);
  const stages = want.pipeline_stages;
  expect(stages.length).toBe(2);
  await expect.poll(async () => (await chartData(page, 'stage-chart')).labels.length).toBe(2);
  const bars = await chartData(page, 'stage-chart');
  const keys = ['parameters', 'gradients', 'optimizer_states', 'activations'];
  keys.forEach((k, i) => expect(bars.sets[i].data, k).toEqual(stages.map((s) => s[k] / GiB)));
  expect(bars.sets[4].data).toEqual(stages.map((s) => s.peak / GiB));  // the stage's peak, the mark
  for (const k of [...keys, 'peak_allocated', 'peak']) expect(await bytesOf(page, 'st-' + k), k).toEqual(stages.map((s) => s[k]));
  await expect(page.locator('#stages-title')).toHaveText('Per pipeline stage');
  // The timeline of this GPU's stage still peaks at its peak_allocated.
  const line = await chartData(page, 'timeline-chart');
  expect(Math.max(...line.sets[0].data)).toBe(want.per_gpu.peak_allocated / GiB);
});

test('a parameter count alone: no timeline nor per-layer view, and the page says why', async ({ app, page }) => {
  await app.open();
  await page.getByTestId('model').selectOption('n');  // "parameter count only"
  await app.settled();
  const doc = await app.inputDoc();
  expect(typeof doc.model.num_parameters).toBe('number');
  const want = cli(doc);
  expect(want.per_gpu.timeline ?? null).toBeNull();
  await page.locator('#pictures').scrollIntoViewIfNeeded();
  await expect(page.getByTestId('timeline-none')).toBeVisible();
  await expect(page.getByTestId('stages-none')).toBeVisible();
});

for (const [name, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
  test(`the peak and the verdict stay in view down the long page, covering no input (${name})`, async ({ browser }) => {
    const context = await browser.newContext({ viewport, isMobile: name === 'phone', hasTouch: name === 'phone' });
    const page = await context.newPage();
    const { WHERE } = require('./fixtures');
    await page.goto(WHERE.http);
    await expect(page.locator('#results')).toHaveAttribute('aria-busy', 'false', { timeout: 15000 });
    for (const target of ['#pictures', '#what-fits', '#gpu-table', '#export-md', '#accuracy']) {
      await page.locator(target).scrollIntoViewIfNeeded();
      await expect(page.getByTestId('peak'), target).toBeInViewport();
      await expect(page.getByTestId('fit'), target).toBeInViewport();
    }
    const headline = await page.getByTestId('headline').boundingBox();
    // An input that takes the focus while it lies under the headline scrolls clear of it.
    for (const testid of ['safety-margin', 'target-global-batch', 'search-world-size']) {
      const input = page.getByTestId(testid);
      await input.evaluate((e) => window.scrollBy(0, e.getBoundingClientRect().top - 10));
      const under = await page.getByTestId('headline').boundingBox();
      expect((await input.boundingBox()).y, testid).toBeLessThan(under.y + under.height);  // covered before the focus
      await input.focus();
      const top = await page.getByTestId('headline').boundingBox();
      expect((await input.boundingBox()).y, testid).toBeGreaterThanOrEqual(top.y + top.height);
    }
    if (name === 'desktop') {
      // The headline sits in the result column, beside the form: it never lies over the form's inputs.
      const form = await page.locator('#inputs').boundingBox();
      expect(headline.x).toBeGreaterThanOrEqual(form.x + form.width);
    }
    await context.close();
  });
}

test('Megatron with --tp-comm-overlap: the userbuffers row and the treemap cell are the CLI\'s', async ({ app, page }) => {
  await app.open('http', '#v3:m=llama-3-70b&fw=megatron&me=full&b=1&s=8192&n=64&tp=8&sp=1&tco=1&g=h100-sxm-80gb');
  const doc = await app.inputDoc();
  expect(doc.parallel.tp_comm_overlap).toBe(true);
  const want = cli(doc);
  // docs/memory-model.md, "Userbuffers": 8,192 x 8,192 x 12 buffers x 2 bytes + 3,223,808 bytes of flags.
  expect(want.per_gpu.userbuffers).toBe(1613836544);
  expect(await app.bytes('b-userbuffers')).toBe(want.per_gpu.userbuffers);
  expect(await app.bytes('b-peak')).toBe(want.per_gpu.peak);
  await expect(page.getByTestId('explain-userbuffers')).toContainText('Transformer Engine userbuffers');
  const tree = await chartData(page, 'peak-treemap');
  const cell = tree.sets[0].tree.find((c) => c.component === 'userbuffers');
  expect(cell.value).toBeCloseTo(want.per_gpu.userbuffers / GiB, 9);
  const cells = await bytesOf(page, 'pb-bytes');
  expect(cells.reduce((a, b) => a + b, 0)).toBe(want.per_gpu.peak);
});

test('without --tp-comm-overlap the breakdown and the Markdown export have no userbuffers row; Compare counts them as 0', async ({ app, page }) => {
  await app.open('http', '#v3:m=llama-3-70b&fw=megatron&me=full&b=1&s=8192&n=64&tp=8&sp=1&tco=1&g=h100-sxm-80gb');
  const on = cli(await app.inputDoc());
  await page.getByTestId('pin').click();
  await app.set('parallel.tp_comm_overlap', false);
  const off = cli(await app.inputDoc());
  expect(off.per_gpu.userbuffers).toBeNull();
  await expect(page.getByTestId('b-peak')).toBeAttached();
  await expect(page.getByTestId('b-userbuffers')).toHaveCount(0);
  // Compare: the userbuffers' difference is the peak's.
  expect(await app.bytes('diff-userbuffers')).toBe(-on.per_gpu.userbuffers);
  expect(await app.bytes('diff-peak')).toBe(off.per_gpu.peak - on.per_gpu.peak);
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-md').click()]);
  const text = require('fs').readFileSync(await md.path(), 'utf8');
  expect(text).toContain(' | ' + off.per_gpu.peak.toLocaleString('en-US') + ' | ');
  expect(text).not.toContain('| Userbuffers');
});
