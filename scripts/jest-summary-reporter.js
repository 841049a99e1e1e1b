'use strict';
// Prints the run's totals as one plain line ("Summary: N passed, N failed, N skipped")
// that any CI reading a closing line understands.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`Summary: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
