// What the README lists as not there yet, one todo each. Whoever does one turns its todo into a
// test and takes the line out of the README: tooling/vitest-config/test/readmes.test.ts fails on
// a README "not yet" whose marker names no todo or test here.
import { it } from 'vitest';

it.todo('kv: key and value codecs');
it.todo('kv: the streamName and bindOnly options');
it.todo('kv: the placement option, and placement, republish, mirror and sources in status()');
it.todo('objectstore: the placement option, and status(options) with stream info options');
it.todo('direct: batched direct gets, jsm.direct.getBatch and getLastMessagesFor');
it.todo('streams.info pages in every subject of a subjects_filter beyond one reply');
it.todo("pull requests use the connection's inboxPrefix");
