import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The worker's code, as a CommonJS string, so it runs the same from src (tests) and dist. It
 * loads bcryptjs from the path this package resolves, and answers each check in turn.
 */
const workerSource = (bcryptPath: string) => `
const { parentPort } = require('node:worker_threads');
const bcrypt = require(${JSON.stringify(bcryptPath)});
parentPort.on('message', ({ id, password, hash }) => {
  let ok = false;
  try { ok = bcrypt.compareSync(password, hash); } catch {}
  parentPort.postMessage({ id, ok });
});
`;

/**
 * bcrypt checks on a thread of their own. bcrypt is slow on purpose (a quarter of a second per
 * check at nats-server's cost 11, in JS); on the event loop, a flood of bad logins would hold
 * up every connection. The worker starts on the first check and does not keep the process alive.
 */
class BcryptWorker {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, (ok: boolean) => void>();
  #nextId = 0;

  compare(password: string, hash: string): Promise<boolean> {
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      worker.postMessage({ id, password, hash });
    });
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const bcryptPath = createRequire(import.meta.url).resolve('bcryptjs');
    const worker = new Worker(workerSource(bcryptPath), { eval: true });
    worker.unref();
    worker.on('message', ({ id, ok }: { id: number; ok: boolean }) => {
      this.#pending.get(id)?.(ok);
      this.#pending.delete(id);
    });
    // Should the worker die, every check in flight fails closed and the next one starts anew.
    const fail = () => {
      this.#worker = undefined;
      for (const resolve of this.#pending.values()) resolve(false);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    this.#worker = worker;
    return worker;
  }
}

/** One per process: the checks of every server in it share the thread. */
export const bcryptWorker = new BcryptWorker();
