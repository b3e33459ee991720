'use strict';
const { state, settle, open, launch, BASE } = require('./zz-newuser-lib.js');
(async () => {
  const browser = await launch();
  const hashes = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
  for (const h of hashes) {
    const { context, page, log } = await open(browser);
    const url = (h.startsWith('file:') || h.startsWith('http')) ? h : BASE + h;
    let navErr = null;
    try { await page.goto(url, { timeout: 30000 }); } catch (e) { navErr = e.message; }
    const st = await settle(page);
    const s = await state(page).catch((e) => ({ err: e.message }));
    const shown = url.length > 220 ? url.slice(0, 220) + '…(' + url.length + ')' : url;
    console.log(JSON.stringify({ url: shown, navErr, ...st, ...s, log: log.filter((l) => !l.startsWith('worker')) }, null, 1));
    await context.close();
  }
  await browser.close();
})();
