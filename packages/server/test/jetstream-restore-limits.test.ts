/**
 * STREAM.RESTORE checks the account's JetStream limits before the upload starts, as
 * nats-server 2.9.10's jsStreamRestoreRequest does (jsNonClusteredStreamLimitsCheck, the
 * check of STREAM.CREATE): the stream count, a max_consumers above the account's, and a
 * max_bytes beyond what the account has left of its memory or file storage, in that order,
 * before whether the stream exists. Each answer is compared with nats-server's.
 */
import { describe, expect, it } from 'vitest';
import type { RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, type RunningTarget } from './targets.js';

type Json = Record<string, unknown>;

/** The state a restore request carries (nats-server does not read it; our schema wants one). */
const STATE = { messages: 0, bytes: 0, first_seq: 0, last_seq: 0, consumer_count: 0 };

async function answersOf(
  { start, connect }: ReturnType<typeof closedAfterEach>,
  scenario: (api: Api) => Promise<Json[]>,
) {
  const server: RunningTarget = await start({
    jetstream: true,
    accounts: {
      A: {
        users: [{ user: 'a', pass: 'pw' }],
        jetstream: { maxMemory: 4096, maxFile: 1_048_576, maxStreams: 2, maxConsumers: 1 },
      },
    },
  });
  const client = await connect(server);
  await client.send(
    'CONNECT {"verbose":false,"headers":true,"user":"a","pass":"pw"}\r\nSUB _INBOX.> 1\r\n',
  );
  await client.sync();
  return scenario(apiOver(client));
}

type Api = (subject: string, body: object) => Promise<Json>;

function apiOver(client: RawClient): Api {
  let next = 1;
  return async (subject, body) => {
    const inbox = `_INBOX.${next++}`;
    const json = JSON.stringify(body);
    const before = client.text.length;
    await client.send(`PUB $JS.API.${subject} ${inbox} ${Buffer.byteLength(json)}\r\n${json}\r\n`);
    const pattern = new RegExp(`MSG ${inbox.replace('.', '\\.')} 1 +(\\d+)\\r\\n`);
    await client.waitUntil((text) => pattern.test(text.slice(before)));
    const rest = client.text.slice(before);
    const match = pattern.exec(rest)!;
    const start = match.index + match[0].length;
    return JSON.parse(rest.slice(start, start + Number(match[1]))) as Json;
  };
}

/** A restore request's answer, its deliver subject reduced to whether there is one. */
async function restore(api: Api, config: Json): Promise<Json> {
  const answer = await api(`STREAM.RESTORE.${config.name}`, { config, state: STATE });
  return { ...answer, deliver_subject: answer.deliver_subject ? 'given' : answer.deliver_subject };
}

const stream = (name: string, extra: Json = {}) => ({
  name,
  subjects: [`${name.toLowerCase()}.>`],
  ...extra,
});

async function scenario(api: Api): Promise<Json[]> {
  const answers: Json[] = [];
  // Beyond the account's memory (4 KiB) and file storage (1 MiB), and its max consumers.
  answers.push(await restore(api, stream('BIG', { storage: 'memory', max_bytes: 8192 })));
  answers.push(await restore(api, stream('HUGE', { max_bytes: 2_000_000 })));
  answers.push(await restore(api, stream('MANY', { max_consumers: 5 })));
  // What is left after a stream reserves part of the file storage.
  await api('STREAM.CREATE.HALF', stream('HALF', { max_bytes: 600_000 }));
  answers.push(await restore(api, stream('OVER', { max_bytes: 600_000 })));
  // Within the limits: the upload may start (and is left to time out).
  answers.push(await restore(api, stream('FITS', { max_bytes: 400_000 })));
  // At the account's two streams, even a restore of an existing stream hears about the count.
  await api('STREAM.CREATE.TWO', stream('TWO'));
  answers.push(await restore(api, stream('THREE')));
  answers.push(await restore(api, stream('TWO')));
  return answers;
}

describe('STREAM.RESTORE and the account limits', () => {
  const [ours, reference] = bothServers.map(closedAfterEach);
  it('refuses what the limits do not allow, as nats-server 2.9.10', async () => {
    const transcripts = [await answersOf(reference!, scenario), await answersOf(ours!, scenario)];
    expect(transcripts[1]).toEqual(transcripts[0]);
    const errors = transcripts[0]!.map((answer) => (answer.error as Json | undefined)?.err_code);
    expect(errors).toEqual([10028, 10047, 10026, 10047, undefined, 10027, 10027]);
  });
});
