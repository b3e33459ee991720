// The page object and the guard every e2e test runs under: a console error, an uncaught exception,
// a Content-Security-Policy violation or a request to another origin fails the test.
const base = require('@playwright/test');
const { execFileSync } = require('child_process');
const path = require('path');
const { pathToFileURL } = require('url');

const ROOT = path.join(__dirname, '..');
const PORT = Number(process.env.E2E_PORT || 4173);  // as playwright.config.js
const WHERE = {
  http: `http://127.0.0.1:${PORT}/index.html`,  // the hosted folder dist/site/ (engine.wasm streamed)
  subpath: `http://127.0.0.1:${PORT + 1}/trainmem-web/index.html`,  // the offline folder, hosted under a sub-path
  offline: pathToFileURL(path.join(ROOT, 'dist', 'trainmem-web', 'index.html')).href,  // the offline folder from disk
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

// Lets a test see and change the engine's answers: the page's engine runs in Web Workers
// (web/src/engine-client.js), and `install` (run in the page before any script) may set
// window.__engineHook = (call, reply, deliver) => ..., called for each answer of a call {fn, args}:
// deliver(reply) hands it (changed or not, now or later) to the page. Every call is recorded in
// window.__engineCalls ({fn, args, lane}; lane: the worker's number, in the order they were made).
async function interceptEngine(page, install) {
  await page.addInitScript(() => {
    const Real = window.Worker;
    window.__engineCalls = [];
    let workers = 0;
    window.Worker = class extends Real {
      constructor(...args) {
        super(...args);
        this.calls = new Map();
        this.lane = workers++;
      }
      postMessage(m, ...rest) {
        if (m && m.type === 'call') {
          this.calls.set(m.id, m);
          window.__engineCalls.push({ fn: m.fn, args: m.args, lane: this.lane });
        }
        return super.postMessage(m, ...rest);
      }
      addEventListener(type, listener, ...rest) {
        if (type !== 'message') return super.addEventListener(type, listener, ...rest);
        return super.addEventListener('message', (event) => {
          const call = event.data && this.calls.get(event.data.id);
          if (!call) return listener.call(this, event);
          this.calls.delete(event.data.id);
          const deliver = (data) => listener.call(this, new MessageEvent('message', { data }));
          return window.__engineHook ? window.__engineHook(call, event.data, deliver) : deliver(event.data);
        }, ...rest);
      }
    };
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
    await this.settled();
    await this.laidOut();
  }

  // Lays the page out whole. The result column's blocks below the first screen are laid out only
  // near the viewport (style.css, content-visibility: auto), at a placeholder height until then; a
  // click that scrolls far down would otherwise land while the blocks it passed take their real
  // height and move its target. The tests check what the page does, not when it lays out.
  async laidOut() {
    await this.page.evaluate(() => {
      for (const block of document.querySelectorAll('#pictures, #solve-body, #result-body > table, #results .scroll')) {
        /** @type {HTMLElement} */ (block).style.contentVisibility = 'visible';
      }
    });
  }

  // Waits until the estimate for the latest input is on screen (the engine answers asynchronously,
  // from its worker; an input event marks the results busy at once).
  async settled() {
    await base.expect(this.page.locator('#results')).toHaveAttribute('aria-busy', 'false', { timeout: 15000 });
  }

  field(p) {
    return this.page.locator(`[data-path="${p}"]`);
  }

  async set(p, value) {
    const f = this.field(p);
    if ((await f.evaluate((e) => e.tagName)) === 'SELECT') await f.selectOption(String(value));
    else await f.fill(String(value));
    await this.settled();
  }

  async model(id) {
    await this.page.getByTestId('model').selectOption('p:' + id);
    await this.settled();
  }

  async inputDoc() {
    await this.settled();
    return JSON.parse(await this.page.getByTestId('input-json').textContent());
  }

  async bytes(testid) {
    await this.settled();
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
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));
      // Chart.js as the page's charts chunk hands it over (web/src/chunks.js), for tests that read a chart's data.
      document.addEventListener('trainmem:chunk', (e) => { if (e.detail.name === 'charts') window.__Chart = e.detail.exports.Chart; });
    });
    // Watched, not intercepted: routing every request makes each page load about a seventh slower.
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (origin === null) origin = url.origin;
      if (url.origin !== origin) problems.push('request left the origin ' + origin + ': ' + url.href);
    });
    await use({ allow: (re) => allowed.push(re) });
    base.expect(problems.filter((p) => !allowed.some((re) => re.test(p)))).toEqual([]);
  }, { auto: true }],
  app: async ({ page }, use) => use(new TrainmemPage(page)),
});

module.exports = { test, expect: base.expect, cli, cliSolve, interceptEngine, WHERE, ROOT };
