import { Worker } from 'node:worker_threads';

/**
 * A thread of its own for work that would block the event loop, answering requests in turn.
 * It starts on the first request from CommonJS source (a string, so it runs the same from src
 * in tests and from dist) and does not keep the process alive. The worker answers each
 * `{ id, ...request }` with `{ id, answer }`. Should it die, every request in flight gets
 * `ended` and the next request starts a new one.
 */
export class RequestWorker<Request extends object, Answer> {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, (answer: Answer) => void>();
  #nextId = 0;

  constructor(
    /** The worker's CommonJS source, built on the first request. */
    private readonly source: () => string,
    /** The answer of a request whose worker died. */
    private readonly ended: Answer,
  ) {}

  /** Whether a worker is running (so there can be state in it to release). */
  get started(): boolean {
    return this.#worker !== undefined;
  }

  request(request: Request): Promise<Answer> {
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      worker.postMessage({ ...request, id });
    });
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.source(), { eval: true });
    worker.unref();
    worker.on('message', ({ id, answer }: { id: number; answer: Answer }) => {
      this.#pending.get(id)?.(answer);
      this.#pending.delete(id);
    });
    const end = () => {
      this.#worker = undefined;
      for (const resolve of this.#pending.values()) resolve(this.ended);
      this.#pending.clear();
    };
    worker.on('error', end);
    worker.on('exit', end);
    this.#worker = worker;
    return worker;
  }
}
