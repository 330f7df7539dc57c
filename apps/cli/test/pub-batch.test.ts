import { describe, expect, it } from 'vitest';
import { failure, slipSuite, startJetStreamServer } from './slip.js';

// `slip pub --atomic` (natscli's flag; --batch too): the --count messages as one atomic batch (nats-server 2.12, ADR-50) through
// @slipstream/jetstream's startBatch; our server has it, nats-server 2.9.10 does not.
describe('pub --batch against slipstream-server', () => {
  const { run, json } = slipSuite(startJetStreamServer);
  // `slip req --json` prints {subject, data}: the API answer is data's JSON.
  const api = async (subject: string, body = '') =>
    JSON.parse((await json('req', subject, body)).data as string) as Record<string, unknown>;
  const createStream = (config: { name: string; [field: string]: unknown }) =>
    api(`$JS.API.STREAM.CREATE.${config.name}`, JSON.stringify(config));

  it('publishes the messages as one batch and prints the batch ack', async () => {
    // natscli's `stream add --allow-batch`.
    const created = await json(
      'stream',
      'add',
      'ORDERS',
      '--subjects',
      'orders.>',
      '--allow-batch',
      '--defaults',
    );
    expect(created).toMatchObject({ config: { allow_atomic: true } });
    expect((await run('stream', 'info', 'ORDERS')).stdout).toContain(
      'Allows Atomic Batch Publish: yes',
    );
    // natscli's `pub --atomic`, and --batch.
    const published = await run('pub', 'orders.new', 'line {{Count}}', '--count', '5', '--atomic');
    expect(published.code).toBe(0);
    expect(published.stdout).toMatch(
      /^Stored batch \S+ of 5 messages in stream ORDERS, the last as message 5\n$/,
    );
    const asJson = await json('pub', 'orders.new', 'x {{Count}}', '--count', '3', '--batch');
    expect(asJson).toMatchObject({
      subject: 'orders.new',
      count: 3,
      batch: { stream: 'ORDERS', seq: 8, count: 3 },
    });
    const last = await api('$JS.API.STREAM.MSG.GET.ORDERS', '{"seq":8}');
    expect(Buffer.from((last.message as { data: string }).data, 'base64').toString()).toBe('x 3');
  });

  it("fails with the server's refusal on a stream without allow_atomic, storing nothing", async () => {
    await createStream({ name: 'PLAIN', subjects: ['plain'] });
    expect(await run('pub', 'plain', 'x', '--count', '3', '--batch')).toEqual(
      failure('atomic publish is disabled (status 400, err_code 10174)'),
    );
    const info = await api('$JS.API.STREAM.INFO.PLAIN');
    expect(info).toMatchObject({ state: { messages: 0 } });
    expect(await run('pub', 'plain', 'x', '--batch')).toEqual(
      failure('--atomic needs --count of at least 2: a batch is its first message and its commit'),
    );
  });
});
