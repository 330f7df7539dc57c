// What the README lists as not there yet, one todo each. Whoever does one turns its todo into a
// test and takes the line out of the README: tooling/vitest-config/test/readmes.test.ts fails on
// a README "not yet" whose marker names no todo or test here.
import { it } from 'vitest';

it.todo('debug logs every protocol frame in and out, as nats.js does');
it.todo('the resolve option: server hostnames looked up in DNS, each address a server');
it.todo('syncIterator');
