import { CommanderError } from 'commander';
import { describeError } from './errors.js';
import { interruptSignal } from './interrupt.js';
import { buildProgram } from './program.js';

// The bin: runs one command; a failure is one line on stderr and exit status 1.
const interrupt = interruptSignal();
// A reader that stopped early (`slip ... | head`) is not an error: stop quietly, as Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});
try {
  await buildProgram(interrupt.signal).parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // commander has printed the help, the version or the usage mistake already.
    process.exitCode = error.exitCode;
  } else {
    process.stderr.write(`slip: error: ${await describeError(error)}\n`);
    process.exitCode = 1;
  }
} finally {
  interrupt.dispose();
}
