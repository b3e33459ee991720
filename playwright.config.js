// Playwright with Debian's Chromium (shared/TOOLCHAIN.md section 7) against the page: web/ served on
// localhost, the built offline folder dist/trainmem-web/ served under a sub-path, and both via file://.
const { defineConfig } = require('@playwright/test');

module.exports = defineConfig({
  testDir: 'e2e',
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: 'http://127.0.0.1:4173',
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
      command: 'python3 -m http.server 4173 --bind 127.0.0.1 --directory web',
      url: 'http://127.0.0.1:4173/index.html',
      reuseExistingServer: !process.env.CI,
      stdout: 'ignore',
      stderr: 'ignore',
    },
    {
      command: 'python3 -m http.server 4174 --bind 127.0.0.1 --directory dist',
      url: 'http://127.0.0.1:4174/trainmem-web/index.html',
      reuseExistingServer: !process.env.CI,
      stdout: 'ignore',
      stderr: 'ignore',
    },
  ],
});
