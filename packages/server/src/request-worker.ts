import { Worker } from 'node:worker_threads';

/**
 * How long a worker with nothing to do is kept. A thread costs ~15 MiB of resident memory (its
 * own V8 heap and Node environment), which a server that checkpointed a stream once, or checked
 * one password, would otherwise hold for good; starting one again takes some 30 ms of its own
 * thread, off the event loop.
 */
const IDLE_MS = 10_000;

/**
 * A thread of its own for work that would block the event loop, answering requests in turn.
 * It starts on the first request from CommonJS source (a string, so it runs the same from src
 * in tests and from dist), does not keep the process alive, and ends after `idleMs` with no
 * request in flight. The worker answers each `{ id, ...request }` with `{ id, answer }`. Should
 * it die, every request in flight gets `ended`; the next request starts a new one.
 */
export class RequestWorker<Request extends object, Answer> {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, (answer: Answer) => void>();
  #nextId = 0;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(
    /** The worker's CommonJS source, built on the first request. */
    private readonly source: () => string,
    /** The answer of a request whose worker died. */
    private readonly ended: Answer,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** Whether a worker is running. */
  get started(): boolean {
    return this.#worker !== undefined;
  }

  request(request: Request): Promise<Answer> {
    const worker = this.#start();
    clearTimeout(this.#idleTimer);
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
      if (this.#pending.size === 0) this.#endWhenIdle(worker);
    });
    const end = () => {
      // A worker ended for idleness may exit after the next request started another.
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      for (const resolve of this.#pending.values()) resolve(this.ended);
      this.#pending.clear();
    };
    worker.on('error', end);
    worker.on('exit', end);
    this.#worker = worker;
    return worker;
  }

  #endWhenIdle(worker: Worker): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#worker !== worker || this.#pending.size > 0) return;
      this.#worker = undefined;
      void worker.terminate();
    }, this.idleMs);
    this.#idleTimer.unref();
  }
}
