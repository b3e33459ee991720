#!/usr/bin/env node
// Page figures (prints them; not a pass/fail test): the web/ folder's gzip size, the time from
// navigation to the first estimate on screen on localhost, the re-render time of an input change (and
// until the What fits? answers that follow it are drawn), and the engine's solve with a 1,024-GPU
// strategy search in the page. Needs the built page (scripts/build.sh) and Debian's Chromium.
// Usage: node bench/page-bench.js
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const zlib = require('zlib');
const { chromium } = require('@playwright/test');

const WEB = path.join(__dirname, '..', 'dist', 'site');
const RUNS = 7;
const CHANGES = 40;
const SOLVES = 9;
// Solve with the strategy search for 1,024 GPUs (the README's native figure is Llama-3.1-70B).
const SEARCHES = {
  'Llama-3.1-70B': '#v3:m=llama-3.1-70b&me=full&b=1&s=4096&n=8&z=3&g=h100-sxm-80gb&xw=1024',
  'Llama-3.1-8B': '#v3:m=llama-3.1-8b&me=full&b=1&s=4096&n=8&z=3&g=h100-sxm-80gb&xw=1024',
};
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.md': 'text/plain', '.wasm': 'application/wasm' };

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  let gzipBytes = 0;
  let rawBytes = 0;
  for (const f of files(WEB).filter((f) => !f.endsWith('.zip'))) {
    const data = fs.readFileSync(f);
    rawBytes += data.length;
    gzipBytes += zlib.gzipSync(data, { level: 9 }).length;
  }

  const server = http.createServer((req, res) => {
    const file = path.join(WEB, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file.startsWith(WEB) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    res.end(fs.readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = 'http://127.0.0.1:' + server.address().port + '/index.html';
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update'],
  });

  // First estimate: navigation start -> the page's 'trainmem-first-estimate' mark (set right after the
  // first result is written to the DOM). Each run is a fresh context: no cache, no stored state.
  const firsts = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => performance.getEntriesByName('trainmem-first-estimate').length > 0);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    firsts.push(await page.evaluate(() => performance.getEntriesByName('trainmem-first-estimate')[0].startTime));
    await context.close();
  }

  // Re-render: one input event on the sequence length (the engine runs and every table and the chart
  // update synchronously in the handler); the time until the next frame starts (the What fits? solve
  // runs after it), and until the panel's answers for the new input are drawn.
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('trainmem-first-estimate').length > 0);
  const answered = () => new Promise((resolve) => {
    const panel = document.getElementById('what-fits');
    if (panel.getAttribute('aria-busy') === 'false') return resolve();
    const seen = new MutationObserver(() => {
      if (panel.getAttribute('aria-busy') === 'false') {
        seen.disconnect();
        resolve();
      }
    });
    seen.observe(panel, { attributes: true });
  });
  await page.evaluate(answered);
  const times = await page.evaluate(async ([n, answeredSource]) => {
    const whenAnswered = new Function('return (' + answeredSource + ')()');
    const input = document.querySelector('[data-path="batch.seq_length"]');
    const sync = [];
    const frame = [];
    const answers = [];
    for (let i = 0; i < n; i++) {
      input.value = String(2048 + 128 * (i % 16));
      const t0 = performance.now();
      input.dispatchEvent(new Event('input', { bubbles: true }));
      sync.push(performance.now() - t0);
      await new Promise((r) => requestAnimationFrame(() => r()));
      frame.push(performance.now() - t0);
      await whenAnswered();
      answers.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 30));
    }
    return { sync, frame, answers };
  }, [CHANGES, answered.toString()]);

  // Solve with a 1,024-GPU strategy search: the engine call as the page makes it (performance measure
  // 'trainmem-solve' around engine.solve), after an input event that asks for it again.
  const searches = {};
  for (const [name, hash] of Object.entries(SEARCHES)) {
    await page.goto(url + hash);
    await page.waitForFunction(() => performance.getEntriesByName('trainmem-solve').length > 0);
    await page.evaluate(answered);
    searches[name] = await page.evaluate(async ([n, answeredSource]) => {
      const whenAnswered = new Function('return (' + answeredSource + ')()');
      const input = document.querySelector('[data-path="solve.strategies.world_size"]');
      const ms = [];
      let candidates = 0;
      for (let i = 0; i < n; i++) {
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await whenAnswered();
        const m = performance.getEntriesByName('trainmem-solve').pop();
        ms.push(m.duration);
        candidates = m.detail.candidates;
      }
      return { ms, candidates };
    }, [SOLVES, answered.toString()]);
  }
  await browser.close();
  server.close();

  const kib = (b) => (b / 1024).toFixed(1) + ' KiB';
  console.log(`web/ folder: ${kib(gzipBytes)} gzip -9 per file (${kib(rawBytes)} raw); target <= 400 KB`);
  console.log(`first estimate on screen after navigation, localhost: ${median(firsts).toFixed(0)} ms median of ${RUNS} (min ${Math.min(...firsts).toFixed(0)}, max ${Math.max(...firsts).toFixed(0)}); target <= 1000 ms`);
  console.log(`input change re-render: ${median(times.sync).toFixed(1)} ms median of ${CHANGES} (max ${Math.max(...times.sync).toFixed(1)}), ${median(times.frame).toFixed(1)} ms to the next frame; target <= 50 ms`);
  console.log(`  What fits? answers (solve incl. the strategy search at the default 8 GPUs, and the GPU table) drawn ${median(times.answers).toFixed(1)} ms after the input (median of ${CHANGES})`);
  for (const [name, r] of Object.entries(searches)) {
    console.log(`solve with a 1,024-GPU strategy search in the page, ${name}: ${r.candidates.toLocaleString('en-US')} candidates in ${median(r.ms).toFixed(0)} ms median of ${SOLVES} (min ${Math.min(...r.ms).toFixed(0)}, max ${Math.max(...r.ms).toFixed(0)}); target <= 200 ms for >= 100,000`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
