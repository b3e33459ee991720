#!/usr/bin/env node
// Page figures (prints them; not a pass/fail test), each beside its target:
//   - the bytes the hosted page (dist/site/) transfers before the first estimate is on screen: every
//     file the browser requested up to then (its network log: the navigation and resource timing
//     entries), gzip -9 per file as a host serving gzip sends it; the chunks loaded on first use
//     (charts, config import, accuracy) separately; the offline folder (dist/trainmem-web/) and its zip;
//   - the time from navigation to the first estimate on screen, hosted (localhost) and from file://
//     (the offline folder), with the page's own marks on the way (engine ready, catalog lists);
//   - the re-render after an input change: the input event until the new estimate is drawn (the
//     engine's answer from its worker, the headline and every result table; the charts, the
//     Pictures section's views and the GPU table's column follow after that frame), and the
//     handler alone;
//   - the What fits? answers that follow, and the solve with a 1,024-GPU strategy search.
// Medians of repeated runs, each in a fresh browser context (no cache, no stored state); with several
// site folders (a build before and after a change) the runs alternate between them so that every
// folder sees the same machine load. Needs the built page (scripts/build.sh) and Debian's Chromium.
// Usage: [RUNS=9] [BROWSER_ARGS=...] node bench/page-bench.js [site-folder ...]   (RUNS: fresh loads
//        per folder; BROWSER_ARGS: extra Chromium switches, space-separated, e.g.
//        --js-flags=--no-wasm-lazy-compilation; the folder defaults to dist/site; its offline folder
//        is the sibling trainmem-web/)
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const zlib = require('zlib');
const { pathToFileURL } = require('url');
const { chromium } = require('@playwright/test');

const RUNS = Number(process.env.RUNS || 9);
const CHANGES = 40;
const SOLVES = 9;
const TARGET_FIRST_KB = 250;
const TARGET_FIRST_MS = 500;
const TARGET_RENDER_MS = 16;
// Solve with the strategy search for 1,024 GPUs (the README's native figure is Llama-3.1-70B), under
// torchtitan, which offers every split the search knows (tensor, pipeline, context).
const SEARCHES = {
  'Llama-3.1-70B': '#v3:m=llama-3.1-70b&fw=torchtitan&me=full&b=1&s=4096&n=8&z=3&g=h100-sxm-80gb&xw=1024',
  'Llama-3.1-8B': '#v3:m=llama-3.1-8b&fw=torchtitan&me=full&b=1&s=4096&n=8&z=3&g=h100-sxm-80gb&xw=1024',
};
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.md': 'text/plain', '.wasm': 'application/wasm' };
const FIRST = 'trainmem-first-estimate';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (b) => (b / 1000).toFixed(1) + ' KB';
const gzipSize = (file) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
const spread = (xs, digits = 0) => `${median(xs).toFixed(digits)} ms median of ${xs.length} (min ${Math.min(...xs).toFixed(digits)}, max ${Math.max(...xs).toFixed(digits)})`;

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/**
 * Serves a folder on localhost (no compression: the bench gzips each file itself), keeping a log of
 * the requests it answered: every request counts, the page's and its workers' alike (a worker's
 * fetch is not in the page's resource timing).
 */
async function serve(root) {
  /** @type {{path: string, at: number}[]} each request's path and arrival (ms since the epoch) */
  const log = [];
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url, 'http://x').pathname;
    log.push({ path: pathname, at: Date.now() });
    const file = path.join(root, decodeURIComponent(pathname));
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    res.end(fs.readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, log, url: 'http://127.0.0.1:' + server.address().port + '/index.html' };
}

/**
 * One fresh load: the time of the first estimate, the page's marks, and the files requested before
 * it (from the server's log where given: the page's and its workers' requests).
 * @param {{path: string, at: number}[]} [log]  the serving server's request log
 * @returns {Promise<{first: number, marks: Record<string, number>, requested: string[]}>}
 */
async function firstLoad(browser, url, log) {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (log) log.length = 0;
  await page.goto(url);
  await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, FIRST);
  const r = await page.evaluate((name) => {
    const first = performance.getEntriesByName(name)[0].startTime;
    const marks = {};
    for (const m of performance.getEntriesByType('mark')) if (m.name.startsWith('trainmem-')) marks[m.name] = m.startTime;
    for (const e of performance.getEntriesByType('resource')) marks['loaded ' + new URL(e.name).pathname.split('/').pop()] = e.responseEnd;
    const requested = [location.pathname, ...performance.getEntriesByType('resource').filter((e) => e.startTime <= first).map((e) => new URL(e.name).pathname)];
    const answer = performance.getEntriesByName('trainmem-first-answer')[0];
    const engineFirstCall = answer && answer.detail ? answer.detail.engine_ms : null;
    return { first, marks, requested, origin: performance.timeOrigin, engineFirstCall };
  }, FIRST);
  if (log) {
    // The server's clock and the page's are this machine's: a request counts if it arrived before
    // the first estimate was on screen.
    const before = log.filter((e) => e.at <= r.origin + r.first);
    r.requested = [...new Set(before.map((e) => e.path))];
    for (const e of before) {
      const name = 'requested ' + e.path.split('/').pop();
      if (!(('loaded ' + e.path.split('/').pop()) in r.marks)) r.marks[name] = e.at - r.origin;
    }
  }
  await context.close();
  return r;
}

/** The re-render and What fits? figures on one page. */
async function rerender(browser, url) {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, FIRST);
  const settled = (id) => new Promise((resolve) => {
    const box = document.getElementById(id);
    if (box.getAttribute('aria-busy') === 'false') return resolve();
    const seen = new MutationObserver(() => {
      if (box.getAttribute('aria-busy') === 'false') {
        seen.disconnect();
        resolve();
      }
    });
    seen.observe(box, { attributes: true });
  });
  await page.evaluate(settled, 'what-fits');
  const times = await page.evaluate(async ([n, settledSource]) => {
    const whenSettled = new Function('return (' + settledSource + ')')();
    const input = document.querySelector('[data-path="batch.seq_length"]');
    const handler = [];
    const drawn = [];
    const answers = [];
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    for (let i = 0; i < n; i++) {
      input.value = String(2048 + 128 * (i % 16));
      const t0 = performance.now();
      input.dispatchEvent(new Event('input', { bubbles: true }));
      handler.push(performance.now() - t0);
      // The estimate drawn: #results leaves aria-busy once every result table holds the new answer;
      // then the frame that paints it.
      await whenSettled('results');
      await frame();
      drawn.push(performance.now() - t0);
      await whenSettled('what-fits');
      answers.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 30));
    }
    return { handler, drawn, answers };
  }, [CHANGES, settled.toString()]);

  // Solve with a 1,024-GPU strategy search: the engine call as the page makes it (performance measure
  // 'trainmem-solve' around engine.solve), after an input event that asks for it again.
  const searches = {};
  for (const [name, hash] of Object.entries(SEARCHES)) {
    await page.goto(url + hash);
    await page.waitForFunction(() => performance.getEntriesByName('trainmem-solve').length > 0);
    await page.evaluate(settled, 'what-fits');
    searches[name] = await page.evaluate(async ([n, settledSource]) => {
      const whenSettled = new Function('return (' + settledSource + ')')();
      const input = document.querySelector('[data-path="solve.strategies.world_size"]');
      const ms = [];
      let candidates = 0;
      for (let i = 0; i < n; i++) {
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await whenSettled('what-fits');
        const m = performance.getEntriesByName('trainmem-solve').pop();
        ms.push(m.duration);
        candidates = m.detail.candidates;
      }
      return { ms, candidates };
    }, [SOLVES, settled.toString()]);
  }
  await page.close();
  return { times, searches };
}

function report(site, loads, offlineLoads, rendered) {
  const offline = path.join(site, '..', 'trainmem-web');
  console.log(`== ${path.relative(process.cwd(), site) || '.'}`);
  // Bytes before the first estimate: the files the page requested up to then (the same set on every
  // run unless the page changes its mind; the largest set is reported).
  const requested = [...new Set(loads.flatMap((l) => l.requested))].map((p) => path.join(site, decodeURIComponent(p)));
  const sizes = requested.filter((f) => fs.existsSync(f)).map((f) => [path.basename(f), gzipSize(f), fs.statSync(f).size]);
  const firstBytes = sizes.reduce((s, [, g]) => s + g, 0);
  console.log(`hosted page, transferred before the first estimate: ${kb(firstBytes)} gzip -9 per file (${sizes.map(([n, g]) => `${n} ${kb(g)}`).join(', ')}); target <= ${TARGET_FIRST_KB} KB`);
  const lazy = files(site).filter((f) => !requested.includes(f) && !f.endsWith('.zip'));
  console.log(`  loaded on first use, not before the first estimate: ${lazy.map((f) => `${path.basename(f)} ${kb(gzipSize(f))}`).join(', ')}`);
  if (fs.existsSync(offline)) {
    const all = files(offline);
    const raw = all.reduce((s, f) => s + fs.statSync(f).size, 0);
    const gz = all.reduce((s, f) => s + gzipSize(f), 0);
    const zip = offline + '.zip';
    console.log(`  offline folder (trainmem-web/, wasm embedded): ${kb(raw)} raw, ${kb(gz)} gzip -9 per file${fs.existsSync(zip) ? `, zip ${kb(fs.statSync(zip).size)}` : ''}`);
  }
  const firsts = loads.map((l) => l.first);
  console.log(`first estimate on screen after navigation, hosted (localhost): ${spread(firsts)}; target <= ${TARGET_FIRST_MS} ms`);
  const names = [...new Set(loads.flatMap((l) => Object.keys(l.marks)))].filter((n) => loads.every((l) => n in l.marks));
  const steps = names.map((n) => [n, median(loads.map((l) => l.marks[n]))]).sort((a, b) => a[1] - b[1]);
  console.log(`  on the way (median ms after navigation): ${steps.map(([n, ms]) => `${n.replace(/^trainmem-/, '')} ${ms.toFixed(0)}`).join(', ')}`);
  if (loads.every((l) => l.engineFirstCall != null)) {
    console.log(`  the engine's first call (the overview the first estimate shows), timed in its worker: ${spread(loads.map((l) => l.engineFirstCall))}`);
  }
  if (offlineLoads.length) console.log(`first estimate on screen, offline folder from file://: ${spread(offlineLoads.map((l) => l.first))}`);
  if (!rendered) return;
  const { times, searches } = rendered;
  console.log(`re-render after an input change, input to the new estimate drawn: ${spread(times.drawn, 1)}; target <= ${TARGET_RENDER_MS} ms (the input handler alone ${median(times.handler).toFixed(1)} ms)`);
  console.log(`  What fits? answers (solve incl. the strategy search at the default 8 GPUs, and the GPU table) drawn ${median(times.answers).toFixed(1)} ms after the input (median of ${CHANGES})`);
  for (const [name, r] of Object.entries(searches)) {
    console.log(`solve with a 1,024-GPU strategy search in the page, ${name}: ${r.candidates.toLocaleString('en-US')} candidates in ${spread(r.ms)}; target <= 200 ms for >= 100,000`);
  }
}

async function main() {
  const sites = (process.argv.length > 2 ? process.argv.slice(2) : [path.join(__dirname, '..', 'dist', 'site')]).map((s) => path.resolve(s));
  const served = await Promise.all(sites.map(serve));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update',
      '--allow-file-access-from-files', ...(process.env.BROWSER_ARGS || '').split(' ').filter(Boolean)],
  });
  const loads = sites.map(() => []);
  const offlineLoads = sites.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (let s = 0; s < sites.length; s++) {
      loads[s].push(await firstLoad(browser, served[s].url, served[s].log));
      const offline = path.join(sites[s], '..', 'trainmem-web', 'index.html');
      if (fs.existsSync(offline)) offlineLoads[s].push(await firstLoad(browser, pathToFileURL(offline).href));
    }
  }
  const rendered = [];
  for (let s = 0; s < sites.length; s++) rendered.push(await rerender(browser, served[s].url));
  await browser.close();
  for (const s of served) s.server.close();
  for (let s = 0; s < sites.length; s++) report(sites[s], loads[s], offlineLoads[s], rendered[s]);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
