import { createRequire } from 'node:module';
import { RequestWorker } from '../request-worker.js';

/**
 * The worker's code: it loads bcryptjs from the path this package resolves, and answers each
 * check in turn.
 */
const workerSource = (bcryptPath: string) => `
const { parentPort } = require('node:worker_threads');
const bcrypt = require(${JSON.stringify(bcryptPath)});
parentPort.on('message', ({ id, password, hash }) => {
  let ok = false;
  try { ok = bcrypt.compareSync(password, hash); } catch {}
  parentPort.postMessage({ id, answer: ok });
});
`;

/**
 * bcrypt checks on a thread of their own. bcrypt is slow on purpose (a quarter of a second per
 * check at nats-server's cost 11, in JS); on the event loop, a flood of bad logins would hold
 * up every connection. Should the worker die, every check in flight fails closed.
 */
const worker = new RequestWorker<{ password: string; hash: string }, boolean>(
  () => workerSource(createRequire(import.meta.url).resolve('bcryptjs')),
  false,
);

/** One per process: the checks of every server in it share the thread. */
export const bcryptWorker = {
  compare: (password: string, hash: string): Promise<boolean> => worker.request({ password, hash }),
};
