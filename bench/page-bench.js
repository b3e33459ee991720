#!/usr/bin/env node
// Page figures (prints them; not a pass/fail test): the web/ folder's gzip size, the time from
// navigation to the first estimate on screen on localhost, and the re-render time of an input change.
// Needs the built page (scripts/build.sh) and Debian's Chromium. Usage: node bench/page-bench.js
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const zlib = require('zlib');
const { chromium } = require('@playwright/test');

const WEB = path.join(__dirname, '..', 'web');
const RUNS = 7;
const CHANGES = 40;
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.md': 'text/plain' };

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  let gzipBytes = 0;
  let rawBytes = 0;
  for (const f of files(WEB)) {
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
  // update synchronously in the handler); also the time until the next frame is drawn.
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('trainmem-first-estimate').length > 0);
  const times = await page.evaluate(async (n) => {
    const input = document.querySelector('[data-path="batch.seq_length"]');
    const sync = [];
    const frame = [];
    for (let i = 0; i < n; i++) {
      input.value = String(2048 + 128 * (i % 16));
      const t0 = performance.now();
      input.dispatchEvent(new Event('input', { bubbles: true }));
      sync.push(performance.now() - t0);
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      frame.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 30));
    }
    return { sync, frame };
  }, CHANGES);
  await browser.close();
  server.close();

  const kib = (b) => (b / 1024).toFixed(1) + ' KiB';
  console.log(`web/ folder: ${kib(gzipBytes)} gzip -9 per file (${kib(rawBytes)} raw); target <= 400 KB`);
  console.log(`first estimate on screen after navigation, localhost: ${median(firsts).toFixed(0)} ms median of ${RUNS} (min ${Math.min(...firsts).toFixed(0)}, max ${Math.max(...firsts).toFixed(0)}); target <= 1000 ms`);
  console.log(`input change re-render: ${median(times.sync).toFixed(1)} ms median of ${CHANGES} (max ${Math.max(...times.sync).toFixed(1)}), ${median(times.frame).toFixed(1)} ms to the next frame; target <= 50 ms`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
