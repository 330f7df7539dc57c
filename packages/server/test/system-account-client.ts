import { expect } from 'vitest';
import type { RawClient } from './raw-client.js';
import {
  bothServers,
  closedAfterEach,
  type RunningTarget,
  type Target,
  type TargetOptions,
} from './targets.js';

/**
 * Accounts for the system account tests: SYS (the system account), A (with JetStream, two
 * mappings, exporting the service `svc.>` and, to B only, the stream `s.>`), B (importing `svc.x` as `ax` and the
 * stream under `from.a`) and a user of $G, each with one user named like its account in lower
 * case (password `pw`).
 */
export const systemAccountConfig: TargetOptions = {
  authorization: { users: [{ user: 'g', pass: 'pw' }] },
  accounts: {
    SYS: { users: [{ user: 'sys', pass: 'pw' }] },
    A: {
      users: [{ user: 'a', pass: 'pw' }],
      jetstream: true,
      exports: [{ service: 'svc.>' }, { stream: 's.>', accounts: ['B'] }],
      mappings: {
        'map.in': 'map.out',
        'split.*': [
          { destination: 'one.$1', weight: 60 },
          { destination: 'two.$1', weight: 30 },
        ],
      },
    },
    B: {
      users: [{ user: 'b', pass: 'pw' }],
      imports: [
        { service: { account: 'A', subject: 'svc.x' }, to: 'ax' },
        { stream: { account: 'A', subject: 's.>' }, prefix: 'from.a' },
      ],
    },
  },
  systemAccount: 'SYS',
  jetstream: true,
};

/** What a side-by-side scenario gets: its target and closedAfterEach's start and connect. */
export type SideRun = { target: Target } & ReturnType<typeof closedAfterEach>;

/**
 * Runs each scenario on our server and on nats-server 2.9.10 at once, the same steps on both,
 * and gives back [ours, theirs]; servers and clients are closed after each test. Call it inside
 * a describe block.
 */
export function sideBySide() {
  const runs = bothServers.map((target) => ({ target, ...closedAfterEach(target) }));
  return async <T>(scenario: (run: SideRun) => Promise<T>) =>
    (await Promise.all(runs.map(scenario))) as [T, T];
}

export interface Received {
  subject: string;
  body: Record<string, unknown>;
}

/** Connects as `user` (password `pw`), sends `setup` and waits until the server has read it. */
export async function login(
  connect: (server: RunningTarget) => Promise<RawClient>,
  server: RunningTarget,
  user: string,
  setup = '',
): Promise<RawClient> {
  const client = await connect(server);
  await client.send(
    `CONNECT {"verbose":false,"pedantic":false,"headers":true,"no_responders":true,"name":"${user}-app","lang":"raw","version":"1.0","user":"${user}","pass":"pw"}\r\n${setup}`,
  );
  await client.sync();
  return client;
}

/** The JSON messages `client` has received so far on subscription `sid`, after `from`. */
export function messages(client: RawClient, sid: number, from = 0): Received[] {
  return payloads(client, sid, from)
    .filter(({ payload }) => payload.startsWith('{'))
    .map(({ subject, payload }) => ({ subject, body: JSON.parse(payload) }));
}

/** Every message `client` has received so far on subscription `sid`, after `from`, as text. */
export function payloads(client: RawClient, sid: number, from = 0) {
  const found: { subject: string; payload: string }[] = [];
  // nats-server 2.9.10 writes its own messages' MSG lines with two spaces before the size.
  const frame = new RegExp(`(?:MSG|HMSG) (\\S+) ${sid} +(?:\\S+ )?(?:\\d+ )?(\\d+)\\r\\n`, 'g');
  const text = client.text.slice(from);
  for (let m = frame.exec(text); m; m = frame.exec(text)) {
    const start = m.index + m[0].length;
    found.push({ subject: m[1]!, payload: text.slice(start, start + Number(m[2])) });
  }
  return found;
}

/**
 * Sends each request (`subject` with its body) with reply subject `in` (the client subscribed
 * it as sid 1) and waits for `answers` JSON answers; a 503 no-responders status is no answer.
 */
export async function ask(
  client: RawClient,
  requests: [subject: string, body?: string][],
  answers = requests.length,
): Promise<Record<string, unknown>[]> {
  const from = client.text.length;
  for (const [subject, body = ''] of requests) {
    await client.send(`PUB ${subject} in ${Buffer.byteLength(body)}\r\n${body}\r\n`);
  }
  await client.waitUntil(() => messages(client, 1, from).length >= answers);
  await client.sync();
  return messages(client, 1, from).map((m) => m.body);
}

/**
 * A JSON value's shape: each value replaced by its type name, objects by their keys' shapes,
 * arrays by their distinct element shapes; what two servers send is compared through it.
 */
export function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const shapes = value.map(shape);
    return shapes.filter((s, i) => shapes.findIndex((t) => same(s, t)) === i);
  }
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shape((value as Record<string, unknown>)[key])]),
    );
  }
  return typeof value;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Expects ours and nats-server's answers to have one shape. */
export function expectSameShape(ours: unknown, theirs: unknown): void {
  expect(shape(ours)).toEqual(shape(theirs));
}

/** Expects two lists of answers to hold the same number of answers, each of one shape. */
export function expectSameShapes(ours: unknown[], theirs: unknown[]): void {
  expect(ours.length).toBe(theirs.length);
  for (const [i, answer] of ours.entries()) expectSameShape(answer, theirs[i]);
}
