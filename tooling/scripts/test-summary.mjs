// Prints the one closing line CI reads: "N passed, N failed" over every test vitest ran.
// A missing or empty report counts as a failure, so a run that executed nothing cannot pass.
import { readFileSync } from 'node:fs';

const reportPath = process.argv[2] ?? '.reports/vitest.json';
let report;
try {
  report = JSON.parse(readFileSync(reportPath, 'utf8'));
} catch (error) {
  console.error(`no test report at ${reportPath}: ${error.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
// A test file that failed to load ran no test: count it as one failure, or it would vanish.
const filesThatRanNothing = (report.testResults ?? []).filter(
  (file) => file.status === 'failed' && (file.assertionResults ?? []).length === 0,
).length;
const failed = (report.numFailedTests ?? 0) + filesThatRanNothing;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
const ranNothing = passed + failed === 0;
console.log(
  `${passed} passed, ${ranNothing ? 1 : failed} failed${skipped ? `, ${skipped} skipped` : ''}`,
);
process.exit(failed > 0 || ranNothing ? 1 : 0);
