// Hosting and offline: the built folder from file:// and under a sub-path, the Content-Security-Policy
// in force, no request leaving the origin, a 390 px phone, and an axe-core accessibility scan.
const { test, expect, cli, ROOT, WHERE } = require('./fixtures');
const fs = require('fs');
const path = require('path');

for (const where of ['http', 'offline']) {
  test(`the Content-Security-Policy is in force (${where}): an inline script is refused, the engine runs`, async ({ app, page, guard }) => {
    await app.open(where);
    guard.allow(/inline script|CSP violation: script-src-elem inline/);
    const ran = await page.evaluate(async () => {
      const seen = new Promise((resolve) => document.addEventListener('securitypolicyviolation', (e) => resolve(e.violatedDirective), { once: true }));
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true';
      document.body.append(s);
      return { directive: await seen, ran: window.__inlineRan === true };
    });
    expect(ran).toEqual({ directive: 'script-src-elem', ran: false });
    await expect(page.locator('#result-body')).toBeVisible();
  });
}

test("hosted: the engine's first worker fetches engine.wasm itself, started before app.js", async ({ app, page, context }) => {
  const order = [];
  context.on('request', (r) => order.push(new URL(r.url()).pathname.split('/').pop()));
  await app.open('http');
  // Requested once, and not by the page's main thread (not in its resource timing): by the worker
  // that engine-start.js, the head's first script, starts (web/src/engine-start.js).
  expect(order.filter((f) => f === 'engine.wasm')).toHaveLength(1);
  expect(await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('engine.wasm')))).toEqual([]);
  expect(order.indexOf('engine-start.js')).toBeLessThan(order.indexOf('app.js'));
  // The page's own scripts (chunks are added later, on first use).
  const scripts = await page.evaluate(() => [...document.scripts].filter((s) => !s.src.includes('/chunk-'))
    .map((s) => [s.getAttribute('src'), s.async, s.defer, s.parentElement.tagName]));
  expect(scripts).toEqual([['engine-start.js', false, false, 'HEAD'], ['app.js', false, false, 'BODY']]);
});

test('the inputs take no typing until the page has read its setup into them (app.js still loading)', async ({ app, page }) => {
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route('**/app.js', async (route) => { await held; await route.continue(); });
  await page.goto(WHERE.http, { waitUntil: 'commit' });  // app.js, held, blocks the load events
  const seq = app.field('batch.seq_length');
  await expect(seq).toBeVisible();
  await expect(page.locator('main')).toHaveAttribute('inert', '');
  // Focus cannot enter an inert subtree: typed keys would have gone nowhere, not into the field.
  expect(await seq.evaluate((e) => { e.focus(); return document.activeElement === e; })).toBe(false);
  release();
  await app.settled();
  await expect(page.locator('main')).not.toHaveAttribute('inert');
  await seq.fill('3000');
  await expect.poll(async () => (await app.inputDoc()).batch.seq_length).toBe(3000);
});

test('hosted: an engine.wasm the server does not give is named with its HTTP status, in the page\'s language', async ({ page, context, guard }) => {
  guard.allow(/console: Failed to load resource: the server responded with a status of 404/);
  await context.route('**/engine.wasm', (route) => route.fulfill({ status: 404, body: '' }));
  await page.goto(WHERE.http + '#');
  await expect(page.locator('#status')).toHaveText('The engine could not be loaded: engine.wasm: HTTP 404');
  await expect(page.locator('#status')).toHaveClass('bad');
  await page.getByTestId('lang').selectOption('zh');
  await expect(page.locator('#status')).toHaveText('无法加载引擎：engine.wasm: HTTP 404');
});

test("hosted: an engine.wasm that is not this build's (the config module's served in its place) is reported, not waited on", async ({ page, context }) => {
  const config = fs.readFileSync(path.join(ROOT, 'dist', 'site', 'config-engine.wasm'));
  // The engine worker's fetch: routed on the context (a page route does not see a worker's requests).
  await context.route('**/engine.wasm', (route) => route.fulfill({ status: 200, contentType: 'application/wasm', body: config }));
  await page.goto(WHERE.http);
  await expect(page.locator('#status')).toHaveText('The engine could not be loaded: the module has no function overview: its .wasm file is not from this page\'s build');
  await expect(page.locator('#status')).toHaveClass('bad');
  await expect(page.locator('#result-body')).toBeHidden();
});

test('hosted: a trainer-config module that does not load is named in the import, and the next import loads it', async ({ app, page, guard }) => {
  guard.allow(/console: Failed to load resource: the server responded with a status of 404/);
  let requests = 0;
  await page.route('**/config-engine.wasm', (route) => (requests++ === 0 ? route.fulfill({ status: 404, body: '' }) : route.continue()));
  await app.open('http');
  await page.locator('#import > summary').click();
  await page.getByTestId('import-text').fill('accelerate launch --num_processes 16 train.py --per_device_train_batch_size 4');
  await page.getByTestId('import-run').click();
  await expect(page.getByTestId('import-errors')).toContainText('The trainer-config module could not be loaded (');
  await expect(page.getByTestId('import-result')).toBeHidden();
  await page.getByTestId('import-run').click();
  await expect(page.getByTestId('import-result')).toBeVisible({ timeout: 15000 });
  await expect(page.getByTestId('import-errors')).toBeEmpty();
  expect(requests).toBe(2);
});

test('hosted: without engine-start.js the page says the engine did not start, and does not wait forever', async ({ page, guard }) => {
  guard.allow(/console: Failed to load resource: the server responded with a status of 404/);
  await page.route('**/engine-start.js', (route) => route.fulfill({ status: 404, body: '' }));
  await page.goto(WHERE.http);
  await expect(page.locator('#status')).toHaveText('The engine could not be started: engine-start.js did not load. Reload the page.');
  await expect(page.locator('#status')).toHaveClass('bad');
});

test('the offline folder is self-contained: every file it references is inside it', async () => {
  const dir = path.join(ROOT, 'dist', 'trainmem-web');
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  for (const ref of refs) {
    if (ref.startsWith('data:') || ref === 'trainmem-web.zip') continue;
    expect(ref, ref).not.toMatch(/^[a-z]+:|^\/\//i);  // relative: works under any sub-path and from file://
    expect(fs.existsSync(path.join(dir, ref)), ref).toBe(true);
  }
  expect(fs.existsSync(path.join(ROOT, 'dist', 'trainmem-web.zip'))).toBe(true);
});

test('no request leaves the origin, whatever is clicked', async ({ app, page, context }) => {
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  await app.open();
  for (const d of await page.locator('details > summary:visible').all()) await d.click();
  await page.getByTestId('pin').click();
  await app.set('batch.micro_batch_size', 4);
  await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  await page.getByTestId('lang').selectOption('zh');
  await app.gpuTableDone();
  const origin = new URL(WHERE.http).origin + '/';
  expect(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:' + origin) && !u.startsWith('data:'))).toEqual([]);
});

test('a 390 px phone: no sideways scrolling, inputs usable, the headline follows', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(WHERE.http);
  await expect(page.getByTestId('input-json')).not.toBeEmpty();
  const widths = async () => page.evaluate(() => [document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]);
  let [doc, body, inner] = await widths();
  expect(doc).toBeLessThanOrEqual(inner);
  expect(body).toBeLessThanOrEqual(inner);
  // The headline is compared with the peak once the page shows the peak at 8192 tokens: the
  // estimate answers from the worker, as slowly as the machine runs, so the peak is read after it
  // has changed, never sampled at the moment of typing.
  const peak = page.getByTestId('peak');
  await expect(peak).toHaveText(/GiB/);
  const before = await peak.textContent();
  await page.locator('[data-path="batch.seq_length"]').fill('8192');
  await expect(peak).not.toHaveText(before);
  const mini = page.getByTestId('mini');
  await expect(mini).toBeVisible();
  await expect(mini).toContainText(await peak.textContent());
  await mini.tap();
  await expect(page.getByTestId('peak')).toBeInViewport();
  await page.getByTestId('lang').selectOption('zh');
  await page.locator('[data-path="method"]').selectOption('lora');
  [doc, body, inner] = await widths();
  expect(doc).toBeLessThanOrEqual(inner);
  expect(errors).toEqual([]);
  await context.close();
});

for (const theme of ['light', 'dark']) {
  test(`axe-core finds no serious or critical accessibility violation (${theme})`, async ({ browser }) => {
    const context = await browser.newContext({ bypassCSP: true });  // to inject axe; the page itself is unchanged
    const page = await context.newPage();
    await page.goto(WHERE.http + '#v2:m=llama-3.1-8b&me=lora&ra=ppo&rm=gpt2&g=h100-sxm-80gb');
    await expect(page.getByTestId('input-json')).not.toBeEmpty();
    await page.getByTestId('theme').selectOption(theme);
    await page.getByTestId('pin').click();
    for (const d of await page.locator('details > summary:visible').all()) await d.click();
    await expect(page.getByTestId('gpu-table')).toHaveAttribute('aria-busy', 'false', { timeout: 15000 });
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ': ' + v.help + ' — ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', '));
    expect(serious).toEqual([]);
    await context.close();
  });
}
