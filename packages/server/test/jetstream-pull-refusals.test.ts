/**
 * How a MSG.NEXT request that cannot be served is answered, side by side with nats-server
 * 2.9.10 (consumer.go processNextMsgRequest): a push consumer says `409 Consumer is push
 * based` (to a +NXT ack too), a body it cannot read gets `400 Bad Request - <Go's json error>`,
 * and a request for a consumer or stream that does not exist (or no longer) gets no answer.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConsumerTarget,
  ConsumerWire,
  startOurs,
  startReference,
  type WireMessage,
} from './jetstream-consumer-wire.js';

/** What a request got back: the status line of each answer, or nothing. */
type Answered = string[];

const statusLine = (m: WireMessage) => m.headers?.split('\r\n')[0] ?? `no status: ${m.data}`;

/** Sends a pull request and waits for one answer (at most `wait` ms, for a silent server). */
async function pull(wire: ConsumerWire, subject: string, body: string, wait = 2_000) {
  const inbox = wire.inbox();
  await wire.flush();
  wire.pub(subject, body, inbox);
  return (await wire.received(inbox, 1, wait)).map(statusLine);
}

/** Runs the scenario on both servers at once; returns each one's transcript. */
async function onBoth<T>(scenario: (wire: ConsumerWire) => Promise<T>): Promise<[T, T]> {
  const run = async (start: () => Promise<ConsumerTarget>) => {
    const target = await start();
    const wire = await ConsumerWire.connect(target.port);
    try {
      return await scenario(wire);
    } finally {
      wire.close();
      await target.stop();
    }
  };
  const [theirs, ours] = await Promise.all([run(startReference), run(startOurs)]);
  return [theirs, ours];
}

async function setUp(wire: ConsumerWire) {
  await wire.request('$JS.API.STREAM.CREATE.S', { name: 'S', subjects: ['s.*'] });
  await wire.request('$JS.API.CONSUMER.DURABLE.CREATE.S.P', {
    stream_name: 'S',
    config: { durable_name: 'P', ack_policy: 'explicit' },
  });
}

/** Bodies nats-server's json.Unmarshal refuses, each in its own words, and some it takes. */
const BODIES = [
  '{bad',
  '{',
  '{"batch":1,}',
  "{'batch':1}",
  '{"batch" 1}',
  '{"batch":1 "no_wait":true}',
  '{"batch":tru}',
  '{"batch":nul',
  '{"batch":"\\q"}',
  '{"batch":"\\u12G4"}',
  '{"batch":"a\u0001"}',
  '{"batch":-}',
  '{"batch":1.}',
  '{"batch":1e}',
  '{"batch":01}',
  '{"a":[1 2]}',
  // Go's limit of nesting: 10,000 with the request's own object.
  `{"a":${'['.repeat(9_999)}${']'.repeat(9_999)}}`,
  `{"a":${'['.repeat(10_000)}`,
  '{"batch":1,"no_wait":true} x',
  '{"batch":1,"no_wait":true}}',
  '{\u00e9}',
  '{"batch":"x"}',
  '{"batch":1.5}',
  '{"batch":1e2,"no_wait":true}',
  '{"batch":99999999999999999999}',
  '{"batch":[1]}',
  '{"batch":{"n":1}}',
  '{"batch":true}',
  '{"no_wait":"true"}',
  '{"no_wait":1}',
  '{"expires":"1s"}',
  '{"idle_heartbeat":1.5,"expires":1000000000}',
  // The first wrong field is the one named.
  '{"no_wait":"yes","batch":"x"}',
  '{"batch":"x","batch":1,"no_wait":true}',
  // Keys match case-insensitively; unknown keys and nulls are ignored.
  '{"BATCH":2,"No_Wait":true}',
  '{"batch":null,"other":{"deep":[1,{"x":"y"}]},"no_wait":true}',
  '  \t{"batch":1,"no_wait":true}\r\n ',
  '{"expires":-1}',
  '{"batch":2,"expires":1000000000,"idle_heartbeat":600000000}',
];

describe('MSG.NEXT refusals, against nats-server 2.9.10 and ours', () => {
  it('a push consumer answers 409 Consumer is push based, to MSG.NEXT and to +NXT', async () => {
    const [theirs, ours] = await onBoth(async (wire) => {
      await wire.request('$JS.API.STREAM.CREATE.S', { name: 'S', subjects: ['s.*'] });
      wire.sub('deliver');
      await wire.request('$JS.API.CONSUMER.DURABLE.CREATE.S.H', {
        stream_name: 'S',
        config: { durable_name: 'H', ack_policy: 'explicit', deliver_subject: 'deliver' },
      });
      const next = '$JS.API.CONSUMER.MSG.NEXT.S.H';
      const answers = {
        empty: await pull(wire, next, ''),
        request: await pull(wire, next, '{"batch":5,"no_wait":true}'),
        malformed: await pull(wire, next, '{bad'),
      };
      await wire.request('s.a', 'one');
      const [delivered] = await wire.received('deliver', 1);
      return { ...answers, ackNext: await pull(wire, delivered!.reply!, '+NXT 1') };
    });
    expect(ours).toEqual(theirs);
    expect(theirs.empty).toEqual(['NATS/1.0 409 Consumer is push based']);
    expect(theirs.ackNext).toEqual(['NATS/1.0 409 Consumer is push based']);
  });

  it('no consumer, a deleted one or no stream: no answer', async () => {
    const [theirs, ours] = await onBoth(async (wire) => {
      await setUp(wire);
      await wire.request('$JS.API.CONSUMER.DURABLE.CREATE.S.GONE', {
        stream_name: 'S',
        config: { durable_name: 'GONE', ack_policy: 'explicit' },
      });
      await wire.request('$JS.API.CONSUMER.DELETE.S.GONE');
      const silent = (subject: string) => pull(wire, subject, '{"batch":1,"no_wait":true}', 500);
      return {
        never: await silent('$JS.API.CONSUMER.MSG.NEXT.S.NOPE'),
        deleted: await silent('$JS.API.CONSUMER.MSG.NEXT.S.GONE'),
        noStream: await silent('$JS.API.CONSUMER.MSG.NEXT.NOSTREAM.P'),
        // A live consumer still answers on the same connection.
        live: await pull(wire, '$JS.API.CONSUMER.MSG.NEXT.S.P', '{"batch":1,"no_wait":true}'),
      };
    });
    expect(ours).toEqual(theirs);
    expect(theirs).toEqual({
      never: [],
      deleted: [],
      noStream: [],
      live: ['NATS/1.0 404 No Messages'],
    });
  });

  it('a body it cannot read: 400 with the words of Go json', async () => {
    const [theirs, ours] = await onBoth(async (wire) => {
      await setUp(wire);
      const answers: Record<string, Answered> = {};
      for (const body of BODIES) {
        answers[body] = await pull(wire, '$JS.API.CONSUMER.MSG.NEXT.S.P', body);
      }
      return answers;
    });
    expect(ours).toEqual(theirs);
    expect(theirs['{bad']).toEqual([
      "NATS/1.0 400 Bad Request - invalid character 'b' looking for beginning of object key string",
    ]);
    expect(theirs['{"batch":"x"}']).toEqual([
      'NATS/1.0 400 Bad Request - json: cannot unmarshal string into Go struct field JSApiConsumerGetNextRequest.batch of type int',
    ]);
  });
});
