// The page object and the guard every e2e test runs under: a console error, an uncaught exception,
// a Content-Security-Policy violation or a request to another origin fails the test.
const base = require('@playwright/test');
const { execFileSync } = require('child_process');
const path = require('path');
const { pathToFileURL } = require('url');

const ROOT = path.join(__dirname, '..');
const PORT = Number(process.env.E2E_PORT || 4173);  // as playwright.config.js
const WHERE = {
  http: `http://127.0.0.1:${PORT}/index.html`,
  file: pathToFileURL(path.join(ROOT, 'web', 'index.html')).href,
  subpath: `http://127.0.0.1:${PORT + 1}/trainmem-web/index.html`,  // the offline folder, hosted under a sub-path
  offline: pathToFileURL(path.join(ROOT, 'dist', 'trainmem-web', 'index.html')).href,
};

// The native CLI's answer for a document (build-native/trainmem estimate|solve), error documents included.
function cli(doc, command = 'estimate') {
  try {
    return JSON.parse(execFileSync(path.join(ROOT, 'build-native', 'trainmem'), [command, '-'], { input: JSON.stringify(doc) }).toString());
  } catch (e) {
    return JSON.parse(e.stdout.toString());
  }
}
const cliSolve = (doc) => cli(doc, 'solve');

// Lets a test change the engine module in the page before app.js gets it: `install` (run in the page
// before any script) sets window.__engineHook = (module) => module.
async function hookEngine(page, install) {
  await page.addInitScript(() => {
    let real;
    Object.defineProperty(window, 'createEngine', {
      configurable: true,
      set(f) { real = f; },
      get() { return real && ((...args) => real(...args).then((m) => (window.__engineHook ? window.__engineHook(m) : m))); },
    });
  });
  await page.addInitScript(install);
}

class TrainmemPage {
  constructor(page) {
    this.page = page;
  }

  async open(where = 'http', hash = '') {
    await this.page.goto(WHERE[where] + hash);
    await base.expect(this.page.getByTestId('input-json')).not.toBeEmpty();
  }

  field(p) {
    return this.page.locator(`[data-path="${p}"]`);
  }

  async set(p, value) {
    const f = this.field(p);
    if ((await f.evaluate((e) => e.tagName)) === 'SELECT') await f.selectOption(String(value));
    else await f.fill(String(value));
  }

  async model(id) {
    await this.page.getByTestId('model').selectOption('p:' + id);
  }

  async inputDoc() {
    return JSON.parse(await this.page.getByTestId('input-json').textContent());
  }

  async bytes(testid) {
    return Number(await this.page.getByTestId(testid).getAttribute('data-bytes'));
  }

  async gpuTableDone() {
    await base.expect(this.page.getByTestId('gpu-table')).toHaveAttribute('aria-busy', 'false', { timeout: 15000 });
  }

  // Waits for the What fits? panel to show the answers for the current inputs.
  async solved() {
    await base.expect(this.page.locator('#what-fits')).toHaveAttribute('aria-busy', 'false', { timeout: 15000 });
  }

  // The solve document the panel gave the engine.
  async solveDoc() {
    await this.solved();
    return JSON.parse(await this.page.getByTestId('solve-json').textContent());
  }
}

const test = base.test.extend({
  guard: [async ({ page, context }, use) => {
    const problems = [];
    const allowed = [];
    let origin = null;
    page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
    page.on('pageerror', (e) => problems.push('uncaught: ' + e.message));
    await page.addInitScript(() => document.addEventListener('securitypolicyviolation',
      (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI)));
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (origin === null) origin = url.origin;
      if (url.origin === origin) return route.continue();
      problems.push('request left the origin ' + origin + ': ' + url.href);
      return route.abort();
    });
    await use({ allow: (re) => allowed.push(re) });
    base.expect(problems.filter((p) => !allowed.some((re) => re.test(p)))).toEqual([]);
  }, { auto: true }],
  app: async ({ page }, use) => use(new TrainmemPage(page)),
});

module.exports = { test, expect: base.expect, cli, cliSolve, hookEngine, WHERE, ROOT };
