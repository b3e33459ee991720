// Script injection through every link parameter, a pasted config.json, the search box and local
// storage runs nothing: text from outside goes in with textContent only. The CSP is bypassed here
// so that it cannot hide an HTML insertion.
const { test, expect } = require('./fixtures');
const { deflateSync } = require('fflate');
const Url = require('../web/src/link-codec.js');

const PAYLOADS = ['<img src=x onerror="window.__pwned=1">', '"><script>window.__pwned=1</script>', "'><svg onload=window.__pwned=1>"];
const hostile = (p) => ({ _name_or_path: p, model_type: p, [p]: p, hidden_size: p, architectures: [p] });

test.use({ bypassCSP: true });

// Once the page has drawn everything for the input (the estimate, the GPU table, the What fits?
// panel), nothing from outside has run and no element was made from it.
async function expectNothingRan(page) {
  for (const busy of ['#results', '#gpu-table', '#what-fits']) await expect(page.locator(busy)).toHaveAttribute('aria-busy', 'false', { timeout: 15000 });
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  expect(await page.locator('img, svg, script:not([src])').count()).toBe(0);
}

// A JSON link value as the current link version writes it: deflate, then base64url (link-codec.js).
const jsonValue = (v) => Buffer.from(deflateSync(new TextEncoder().encode(JSON.stringify(v)))).toString('base64url');

for (const payload of PAYLOADS) {
  test(`every link parameter carrying ${payload.slice(0, 14)}… runs nothing and is shown as text`, async ({ app, page }) => {
    const pairs = Url.KEYS.map(([key, , type]) => key + '=' + (type === 'json' ? jsonValue(hostile(payload)) : encodeURIComponent(payload)));
    pairs.push(encodeURIComponent(payload) + '=' + encodeURIComponent(payload));  // as a parameter name too
    // The link is whole (its check value matches), so every parameter is read and each bad one named.
    const text = 'v' + Url.VERSION + ':' + pairs.join('&');
    await app.open('http', '#' + text + '&c=' + Url.checkValue(text));
    await expectNothingRan(page);
    await expect(page.getByTestId('link-problems')).toContainText(payload.slice(0, 12));
    await expect(page.locator('#result-body')).toBeHidden();  // every invalid value kept in its field and named: no estimate
  });
}

test('a hostile config.json, search text and local storage run nothing', async ({ app, page }) => {
  await app.open();
  for (const payload of PAYLOADS) {
    await page.locator('#custom-model').evaluate((d) => { d.open = true; });
    // A config the engine reads (its unknown model_type as a generic decoder from the standard keys),
    // so it is added to the custom models under its hostile name.
    await page.getByTestId('config-text').fill(JSON.stringify({ ...hostile(payload), hidden_size: 64, num_hidden_layers: 2,
      intermediate_size: 128, num_attention_heads: 4, vocab_size: 1000 }));
    await page.getByTestId('config-use').click();
    await page.getByTestId('model-search').fill(payload);
    await page.getByTestId('model-search').fill('huggingface.co/' + payload + '/x');
    await expectNothingRan(page);
  }
  await expect(page.getByTestId('model').locator('optgroup').last()).toContainText(PAYLOADS[0]);
  await page.getByTestId('pin').click();

  await page.evaluate((payloads) => {
    localStorage.setItem('trainmem.customs', JSON.stringify(payloads.map((p) => ({ name: p, config: { model_type: p } }))));
    localStorage.setItem('trainmem.state', JSON.stringify('#v2:m=' + encodeURIComponent(payloads[0])));
    localStorage.setItem('trainmem.pinned', JSON.stringify('#v2:m=' + encodeURIComponent(payloads[1])));
    localStorage.setItem('trainmem.prefs', JSON.stringify({ unit: payloads[0], lang: payloads[1], theme: payloads[2] }));
  }, PAYLOADS);
  await page.goto('/index.html');
  await expect(page.getByTestId('input-json')).not.toBeEmpty();
  await expectNothingRan(page);
});
