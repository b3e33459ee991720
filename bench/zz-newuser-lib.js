'use strict';
const { chromium } = require('@playwright/test');
const BASE = process.env.BASE || 'http://127.0.0.1:4390/';

async function state(page) {
  return page.evaluate(() => {
    const t = (sel) => { const e = document.querySelector(sel); return e ? e.innerText.replace(/\s+/g, ' ').trim() : null; };
    const v = (sel) => { const e = document.querySelector(sel); return e ? e.value : null; };
    const hl = document.getElementById('headline');
    return {
      histLen: history.length, hash: location.hash.length > 200 ? location.hash.slice(0, 200) + '…(' + location.hash.length + ')' : location.hash,
      linkProblems: t('#link-problems'),
      legacy: (document.getElementById('link-legacy') || {}).hidden ? '' : t('#link-legacy'),
      status: t('#status'),
      errors: t('#errors'),
      headlineHidden: hl ? hl.hidden : null,
      peak: t('#peak'),
      fit: t('[data-testid=fit]'),
      fields: {
        model: v('#model-select'), search: v('#model-search'), b: v('[data-testid=micro_batch_size]'), s: v('[data-testid=seq_length]'),
        n: v('[data-testid=world_size]'), z: v('[data-testid=zero_stage]'), g: v('#gpu-select'), me: v('[data-testid=method]'),
      },
    };
  });
}

async function settle(page, ms = 20000) {
  const t0 = Date.now();
  let last = '', stableSince = Date.now();
  while (Date.now() - t0 < ms) {
    await page.waitForTimeout(250);
    let s;
    try { s = JSON.stringify(await state(page)); } catch (e) { s = 'ERR ' + e.message; }
    if (s !== last) { last = s; stableSince = Date.now(); }
    else if (Date.now() - stableSince > 1200 && !/Loading the engine/.test(s)) return { settled: true, ms: Date.now() - t0 };
  }
  return { settled: false, ms: Date.now() - t0 };
}

async function open(browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const log = [];
  page.on('pageerror', (e) => log.push('PAGEERROR ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') log.push('CONSOLE.' + m.type() + ' ' + m.text().slice(0, 300)); });
  page.on('crash', () => log.push('CRASH'));
  page.on('worker', (w) => log.push('worker ' + w.url().slice(-40)));
  return { context, page, log };
}

async function launch() { return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--renderer-process-limit=2'] }); }
module.exports = { state, settle, open, launch, BASE };
