/**
 * An ack naming a delivery the consumer never made is ignored. Any client may publish to
 * `$JS.ACK.…`: an ack-all naming a stream sequence far past the stream's end once raised the ack
 * floor there and, under interest retention, walked every sequence up to it, freezing the
 * server (nats-server 2.9.10 walks them too).
 */
import { expect, it } from 'vitest';
import type { ConsumerRequests } from './jetstream-consumer-requests.js';
import { useOurServer } from './jetstream-consumer-requests.js';
import type { ConsumerWire } from './jetstream-consumer-wire.js';

let wire: ConsumerWire;
let js: ConsumerRequests;
useOurServer((w, r) => {
  wire = w;
  js = r;
});

it.each(['all', 'explicit'])(
  'ignores an ack (policy %s) of a delivery never made and keeps serving',
  async (ackPolicy) => {
    await js.stream({ name: 'I', subjects: ['i.*'], retention: 'interest' });
    await js.consumer('I', { durable_name: 'C', ack_policy: ackPolicy });
    await js.publish(['i.1', 'i.2']);
    const inbox = wire.inbox();
    wire.pub('$JS.API.CONSUMER.MSG.NEXT.I.C', { batch: 1, no_wait: true }, inbox);
    const [first] = await wire.received(inbox, 1);
    expect(first!.reply).toMatch(/^\$JS\.ACK\.I\.C\.1\.1\.1\./);
    // consumer sequence 5 and stream sequence 10^15: neither was ever delivered
    wire.pub('$JS.ACK.I.C.1.1000000000000000.5.0.0', '+ACK');
    wire.pub('$JS.ACK.I.C.1.2.2.0.0', '+ACK');
    const info = await js.info('I', 'C');
    expect(info.ack_floor).toMatchObject({ consumer_seq: 0, stream_seq: 0 });
    expect(info.num_ack_pending).toBe(1);
    const stream = await wire.request('$JS.API.STREAM.INFO.I');
    expect(stream.state).toMatchObject({ messages: 2, first_seq: 1, last_seq: 2 });
  },
);
