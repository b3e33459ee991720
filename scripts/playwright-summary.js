#!/usr/bin/env node
// One "N passed, N failed" line from Playwright's JSON report, counting as failures everything that
// would otherwise pass silently: a skipped or fixme test, a spec file that failed to load (a report
// error), a spec file in e2e/ that contributed no test, no tests at all, or no report.
//   node scripts/playwright-summary.js test-results/e2e.json
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
let passed = 0;
let failed = 0;
const problems = [];
try {
  const report = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const s = report.stats;
  passed = s.expected;
  failed = s.unexpected + s.flaky + s.skipped;
  if (s.skipped) problems.push(`${s.skipped} skipped test(s)`);
  if (s.flaky) problems.push(`${s.flaky} flaky test(s)`);
  for (const e of report.errors || []) problems.push(`report error: ${(e.message || '').split('\n')[0]}`);
  failed += (report.errors || []).length;
  const testDir = path.join(ROOT, 'e2e');
  const reported = new Set((report.suites || []).map((suite) => path.basename(suite.file)));
  for (const spec of fs.readdirSync(testDir).filter((f) => f.endsWith('.spec.js'))) {
    if (!reported.has(spec)) {
      problems.push(`e2e/${spec} ran no test`);
      failed += 1;
    }
  }
  if (passed + failed === 0) {
    problems.push('no tests ran');
    failed = 1;
  }
} catch (e) {
  problems.push(`no Playwright report: ${e.message}`);
  failed += 1;
}
for (const p of problems) console.log(`playwright: ${p}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
