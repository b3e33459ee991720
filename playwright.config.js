// Playwright with Debian's Chromium (apt package chromium, /usr/bin/chromium) against the built page: the hosted
// folder dist/site/ served on localhost, and the offline folder dist/trainmem-web/ served under a
// sub-path and opened via file://.
const { defineConfig } = require('@playwright/test');

// E2E_PORT (default 4173) serves dist/site/, the next port dist/: two checkouts can test at once.
const PORT = Number(process.env.E2E_PORT || 4173);

module.exports = defineConfig({
  testDir: 'e2e',
  workers: 1,
  forbidOnly: true,  // a stray test.only would silently skip every other test
  reporter: [['list']],
  // An expectation waits up to 15 s (Playwright's default is 5): on a loaded 2-core machine the first
  // import compiles the trainer-config module's wasm in its worker in more than 5 s. A passing
  // expectation returns as soon as it holds, so this costs nothing when the machine is idle.
  expect: { timeout: 15000 },
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
             '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
  webServer: [
    {
      command: `python3 -m http.server ${PORT} --bind 127.0.0.1 --directory dist/site`,
      url: `http://127.0.0.1:${PORT}/index.html`,
      reuseExistingServer: !process.env.CI,
      stdout: 'ignore',
      stderr: 'ignore',
    },
    {
      command: `python3 -m http.server ${PORT + 1} --bind 127.0.0.1 --directory dist`,
      url: `http://127.0.0.1:${PORT + 1}/trainmem-web/index.html`,
      reuseExistingServer: !process.env.CI,
      stdout: 'ignore',
      stderr: 'ignore',
    },
  ],
});
