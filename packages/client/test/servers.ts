import { startNatsServer } from '@slipstream/test-servers';

/** A server the shared suite runs against. */
export interface SuiteServer {
  readonly url: string;
  stop(): Promise<void>;
}

export interface ServerKind {
  readonly name: string;
  start(): Promise<SuiteServer>;
}

/** Every server the client suite runs against: the real nats-server, and ours once it serves. */
export const serverKinds: ServerKind[] = [
  { name: 'nats-server 2.9.10', start: () => startNatsServer() },
];

/** Bounded wait for a condition that other events make true. */
export async function waitFor(
  check: () => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
