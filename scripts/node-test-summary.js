#!/usr/bin/env node
// One "N passed, N failed" line from `node --test` TAP output, counting as failures everything that
// would otherwise pass silently: skipped, todo and cancelled tests, a module in tests-js/ that
// `node --test` does not pick up by its name (not *.test.mjs / *.test.js / *.test.cjs) and no test
// imports, no tests, or no summary (the run died).
//   node scripts/node-test-summary.js test-results/node.log
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const problems = [];
let passed = 0;
let failed = 0;
const log = fs.existsSync(process.argv[2]) ? fs.readFileSync(process.argv[2], 'utf8') : '';
// The TAP summary: "# tests N", "# pass N", ... (the spec reporter writes "ℹ tests N").
const count = (name) => {
  const m = [...log.matchAll(new RegExp(`^(?:# |ℹ )${name} (\\d+)$`, 'gm'))].pop();
  return m ? Number(m[1]) : null;
};
const tests = count('tests');
if (tests === null) {
  problems.push('no summary in the node --test output');
  failed = 1;
} else {
  passed = count('pass');
  failed = count('fail');
  for (const name of ['cancelled', 'skipped', 'todo']) {
    const n = count(name);
    if (n) problems.push(`${n} ${name} test(s)`);
    failed += n;
  }
  if (passed + failed !== tests) problems.push(`${tests} tests but ${passed} passed and ${failed} failed`);
  if (tests === 0) {
    problems.push('no tests ran');
    failed += 1;
  }
}
// A module in tests-js/ is either a test file (by name) or a helper some test file imports.
const dir = path.join(ROOT, 'tests-js');
const modules = fs.readdirSync(dir).filter((f) => /\.(mjs|cjs|js)$/.test(f));
const isTest = (f) => /\.test\.(mjs|cjs|js)$/.test(f);
const testSources = modules.filter(isTest).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
for (const f of modules.filter((m) => !isTest(m))) {
  if (!testSources.includes(`./${f}`)) {
    problems.push(`tests-js/${f} is neither a test file node --test runs (*.test.mjs) nor imported by one`);
    failed += 1;
  }
}
for (const p of problems) console.log(`node --test: ${p}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
