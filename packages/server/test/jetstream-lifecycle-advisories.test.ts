/**
 * The advisories of a stream's and its consumers' life, side by side with nats-server 2.9.10:
 * creates, purges, updates, a seal, a consumer delete and the stream's delete, with what a
 * `$JS.EVENT.>` subscriber got (API audits aside). nats-server sends all of a stream's and its
 * consumers' advisories through the stream's one queue, so their order is the order of the
 * requests, except that a deleted stream's consumers go in no set order; deleting a stream
 * deletes each consumer, announced by CONSUMER.DELETED, before STREAM.DELETED.
 *
 * nats-server 2.9.10 can lose that tail: `stream.stop` queues the advisories and then closes the
 * stream's quit channel, and its `internalLoop` selects between the two at random, so it may quit
 * with advisories still queued. A reference run without STREAM.DELETED is run again.
 */
import { describe, expect, it } from 'vitest';
import { JsProbe, type JsTarget, startOurJs, startReferenceJs } from './js-probe.js';

type Step = (api: JsProbe) => Promise<unknown>;

const STREAM = { name: 'S', subjects: ['s.*'] };
const STREAM_DELETED = '$JS.EVENT.ADVISORY.STREAM.DELETED.S';

const consumer =
  (name: string, config: Record<string, unknown>): Step =>
  (api) =>
    api.request(`$JS.API.CONSUMER.CREATE.S.${name}`, {
      stream_name: 'S',
      config: { name, ack_policy: 'explicit', ...config },
    });

/** A pull request on `_WAITING` that waits 30 s, so only its consumer's end can answer it. */
const waitingPull =
  (name: string): Step =>
  async (api) => {
    await api.subscribe('_WAITING');
    const body = JSON.stringify({ batch: 1, expires: 30e9 });
    await api.client.send(
      `PUB $JS.API.CONSUMER.MSG.NEXT.S.${name} _WAITING ${body.length}\r\n${body}\r\n`,
    );
    await api.client.sync();
  };

const steps: Step[] = [
  (api) => api.request('$JS.API.STREAM.CREATE.S', STREAM),
  consumer('PULL', { durable_name: 'PULL' }),
  consumer('PUSH', { durable_name: 'PUSH', deliver_subject: 'deliver.push' }),
  consumer('EPHEMERAL', { inactive_threshold: 60e9 }),
  consumer('DOOMED', { durable_name: 'DOOMED' }),
  (api) => api.request('s.a', 'one'),
  (api) => api.request('s.b', 'two'),
  (api) => api.request('$JS.API.STREAM.PURGE.S', { filter: 's.a' }),
  (api) => api.request('$JS.API.STREAM.PURGE.S'),
  (api) => api.request('$JS.API.STREAM.UPDATE.S', { ...STREAM, max_msgs: 10 }),
  (api) => api.request('$JS.API.CONSUMER.DELETE.S.DOOMED'),
  waitingPull('PULL'),
  (api) => api.request('$JS.API.STREAM.UPDATE.S', { ...STREAM, max_msgs: 10, sealed: true }),
  (api) => api.request('$JS.API.STREAM.DELETE.S'),
];

interface Outcome {
  /** Each event as `<subject> <action>`, in the order it came. */
  events: string[];
  /** The status line the pull request waiting on the deleted stream's consumer got. */
  waiting: string | undefined;
}

const WAITING_STATUS = /NATS\/1\.0 4\d\d [^\r]*/;

/** Runs the steps; resolves with no outcome if STREAM.DELETED did not come within `timeoutMs`. */
async function run(target: JsTarget, timeoutMs: number): Promise<Outcome | undefined> {
  const watcher = await JsProbe.connect(target.port);
  await watcher.subscribe('$JS.EVENT.>');
  const api = await JsProbe.connect(target.port, { headers: true });
  try {
    for (const step of steps) await step(api);
    // The stream's advisory is the last one of its queue; the waiting request's status follows.
    const deleted = await watcher.client
      .waitUntil(() => watcher.messages().some((m) => m.subject === STREAM_DELETED), timeoutMs)
      .then(
        () => true,
        () => false,
      );
    if (!deleted) return undefined;
    const waiting = await api.client.waitFor(WAITING_STATUS, timeoutMs);
    return {
      events: watcher
        .messages()
        .filter((m) => !m.subject.startsWith('$JS.EVENT.ADVISORY.API'))
        .map((m) => `${m.subject} ${JSON.parse(m.data).action}`),
      waiting: WAITING_STATUS.exec(waiting)?.[0],
    };
  } finally {
    watcher.close();
    api.close();
  }
}

async function runOn(start: () => Promise<JsTarget>, timeoutMs: number) {
  const target = await start();
  try {
    return await run(target, timeoutMs);
  } finally {
    await target.stop();
  }
}

/** Ours must announce the whole tail on the first run; the reference gets three tries. */
async function outcomes(): Promise<[Outcome | undefined, Outcome | undefined]> {
  const reference = async () => {
    let outcome: Outcome | undefined;
    for (let attempt = 0; attempt < 3 && !outcome; attempt++) {
      outcome = await runOn(startReferenceJs, 5_000);
    }
    return outcome;
  };
  return Promise.all([runOn(startOurJs, 15_000), reference()]);
}

/** The events with each run of consumer deletions sorted (nats-server's order is a map's). */
function withDeletionsSorted(events: string[]): string[] {
  const sorted = [...events];
  const isConsumerDelete = (event: string | undefined) =>
    event?.startsWith('$JS.EVENT.ADVISORY.CONSUMER.DELETED.') ?? false;
  for (let start = 0; start < sorted.length; start++) {
    let end = start;
    while (isConsumerDelete(sorted[end])) end++;
    sorted.splice(start, end - start, ...sorted.slice(start, end).sort());
    start = Math.max(start, end);
  }
  return sorted;
}

describe('stream and consumer life advisories, against nats-server 2.9.10 and ours', () => {
  it('deleting a stream announces each consumer deleted, then the stream', async () => {
    const [mine, theirs] = await outcomes();
    expect(mine, 'our STREAM.DELETED').toBeDefined();
    expect(theirs, 'nats-server STREAM.DELETED in three runs').toBeDefined();
    const [ours, reference] = [mine!, theirs!];
    expect(withDeletionsSorted(ours.events)).toEqual(withDeletionsSorted(reference.events));
    const created = (name: string) => `$JS.EVENT.ADVISORY.CONSUMER.CREATED.S.${name} create`;
    const deleted = (name: string) => `$JS.EVENT.ADVISORY.CONSUMER.DELETED.S.${name} delete`;
    // Purges say nothing; an update and a seal are modifications.
    expect(withDeletionsSorted(reference.events)).toEqual([
      '$JS.EVENT.ADVISORY.STREAM.CREATED.S create',
      created('PULL'),
      created('PUSH'),
      created('EPHEMERAL'),
      created('DOOMED'),
      '$JS.EVENT.ADVISORY.STREAM.UPDATED.S modify',
      deleted('DOOMED'),
      '$JS.EVENT.ADVISORY.STREAM.UPDATED.S modify',
      deleted('EPHEMERAL'),
      deleted('PULL'),
      deleted('PUSH'),
      `${STREAM_DELETED} delete`,
    ]);
    expect(ours.waiting).toBe(reference.waiting);
    expect(reference.waiting).toBe('NATS/1.0 409 Consumer Deleted');
  });
});
