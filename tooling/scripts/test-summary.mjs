// Prints the one closing line CI reads: "N passed, N failed" over every test vitest ran, and
// exits non-zero if the run failed in any way. Usage:
//   node tooling/scripts/test-summary.mjs [report.json] [--exit-code <status of the vitest command>]
// The JSON report counts only tests: a beforeAll that throws turns its tests into "skipped", an
// afterAll that throws fails its file but no test, and an unhandled error appears nowhere in it.
// So failed files are counted too, and the report's success flag and vitest's exit status are
// honoured: whatever failed outside any test counts as one failure more, with a line saying why.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'exit-code': { type: 'string' } },
});
const reportPath = positionals[0] ?? '.reports/vitest.json';
const exitCode = values['exit-code'] === undefined ? 0 : Number(values['exit-code']);

let report;
try {
  report = JSON.parse(readFileSync(reportPath, 'utf8'));
} catch (error) {
  console.error(`no test report at ${reportPath}: ${error.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const passed = report.numPassedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
const failedTests = report.numFailedTests ?? 0;
// A file that failed without a failed test: it did not load, or one of its hooks threw.
const filesFailedOutsideTests = (report.testResults ?? []).filter(
  (file) =>
    file.status === 'failed' &&
    !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
);
for (const file of filesFailedOutsideTests) {
  console.error(`failed outside its tests: ${file.name}${file.message ? `: ${file.message}` : ''}`);
}
let failed = failedTests + filesFailedOutsideTests.length;

const reasons = [];
if (passed + failed === 0) reasons.push('no test ran');
if (report.success !== true) reasons.push('the report says the run did not succeed');
if (exitCode !== 0) reasons.push(`vitest exited with status ${exitCode}`);
if (failed === 0 && reasons.length > 0) {
  // Nothing above explains it (an unhandled error, say): count it, and say so.
  console.error(
    `the run failed outside any test (${reasons.join('; ')}): see vitest's output above`,
  );
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || reasons.length > 0 ? 1 : 0);
