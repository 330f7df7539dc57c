// What the README lists as not there yet, one todo each. Whoever does one turns its todo into a
// test and takes the line out of the README: tooling/vitest-config/test/readmes.test.ts fails on
// a README "not yet" whose marker names no todo or test here.
import { it } from 'vitest';

it.todo('message tracing: the ingress event of a publish over max_payload');
it.todo(
  '2.14: fast batches, durable sourcing consumers, ack policy flow_control, trace disabled by Nats-Trace-Dest',
);
