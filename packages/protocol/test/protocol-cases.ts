import type { ProtocolErrorCode } from '../src/index.js';

// Byte streams a client sends, with nats-server 2.9.10's verdict on each. The parser tests check
// our ServerSideParser against them; parser.nats-server.test.ts checks them against the real
// server. The server has seen `CONNECT {"verbose":false,"pedantic":false,"headers":true}` first.

export interface RejectedCase {
  what: string;
  input: string;
  code: ProtocolErrorCode;
  /** nats-server answers `-ERR '<text>'` and closes; `undefined`: it closes without a word. */
  serverErrorText: string | undefined;
}

const UNKNOWN = 'Unknown Protocol Operation';
const a = (n: number) => 'a'.repeat(n);

export const rejectedCases: RejectedCase[] = [
  { what: 'an unknown op', input: 'XYZ\r\n', code: 'UNKNOWN_OPERATION', serverErrorText: UNKNOWN },
  { what: 'an empty line', input: '\r\n', code: 'UNKNOWN_OPERATION', serverErrorText: UNKNOWN },
  {
    what: 'a truncated verb',
    input: 'PU\r\n',
    code: 'UNKNOWN_OPERATION',
    serverErrorText: UNKNOWN,
  },
  {
    what: 'PUB without a separator',
    input: 'PUB\r\n',
    code: 'UNKNOWN_OPERATION',
    serverErrorText: UNKNOWN,
  },
  {
    what: 'PUBX',
    input: 'PUBX foo 1\r\nx\r\n',
    code: 'UNKNOWN_OPERATION',
    serverErrorText: UNKNOWN,
  },
  {
    what: 'UNSUB without arguments',
    input: 'UNSUB\r\n',
    code: 'UNKNOWN_OPERATION',
    serverErrorText: UNKNOWN,
  },
  {
    what: 'a route op',
    input: 'RS+ foo 1\r\n',
    code: 'UNKNOWN_OPERATION',
    serverErrorText: UNKNOWN,
  },
  {
    what: '-ERR from a client',
    input: "-ERR 'x'\r\n",
    code: 'UNKNOWN_OPERATION',
    serverErrorText: undefined,
  },
  {
    what: 'PUB with one argument',
    input: 'PUB foo\r\n',
    code: 'MALFORMED_ARGUMENTS',
    serverErrorText: undefined,
  },
  {
    what: 'PUB with four arguments',
    input: 'PUB foo a b 1\r\nx\r\n',
    code: 'MALFORMED_ARGUMENTS',
    serverErrorText: undefined,
  },
  {
    what: 'PUB with only blanks',
    input: 'PUB  \r\n',
    code: 'MALFORMED_ARGUMENTS',
    serverErrorText: undefined,
  },
  {
    what: 'HPUB with two arguments',
    input: 'HPUB foo 1\r\n',
    code: 'MALFORMED_ARGUMENTS',
    serverErrorText: undefined,
  },
  {
    what: 'HPUB with five arguments',
    input: 'HPUB foo a b 0 1\r\n',
    code: 'MALFORMED_ARGUMENTS',
    serverErrorText: undefined,
  },
  {
    what: 'SUB with one argument',
    input: 'SUB foo\r\n',
    code: 'MALFORMED_ARGUMENTS',
    serverErrorText: undefined,
  },
  {
    what: 'SUB with four arguments',
    input: 'SUB foo 1 2 3\r\n',
    code: 'MALFORMED_ARGUMENTS',
    serverErrorText: undefined,
  },
  {
    what: 'UNSUB with three arguments',
    input: 'UNSUB 1 2 3\r\n',
    code: 'MALFORMED_ARGUMENTS',
    serverErrorText: undefined,
  },
  {
    what: 'a negative size',
    input: 'PUB foo -1\r\n',
    code: 'INVALID_SIZE',
    serverErrorText: undefined,
  },
  {
    what: 'a signed size',
    input: 'PUB foo +1\r\n',
    code: 'INVALID_SIZE',
    serverErrorText: undefined,
  },
  {
    what: 'a non-numeric size',
    input: 'PUB foo bar\r\n',
    code: 'INVALID_SIZE',
    serverErrorText: undefined,
  },
  {
    what: 'a ten-digit size',
    input: 'PUB foo 0000000001\r\nx\r\n',
    code: 'INVALID_SIZE',
    serverErrorText: undefined,
  },
  {
    what: 'a bad header size',
    input: 'HPUB foo x 1\r\n',
    code: 'INVALID_SIZE',
    serverErrorText: undefined,
  },
  {
    what: 'a bad total size',
    input: 'HPUB foo 0 x\r\n',
    code: 'INVALID_SIZE',
    serverErrorText: undefined,
  },
  {
    what: 'header size > total size',
    input: 'HPUB foo 12 11\r\n',
    code: 'HEADER_SIZE',
    serverErrorText: undefined,
  },
  {
    what: 'MSG from a client',
    input: 'MSG foo 1 1\r\nx\r\n',
    code: 'UNKNOWN_OPERATION',
    serverErrorText: UNKNOWN,
  },
  {
    what: 'HMSG from a client',
    input: 'HMSG foo 1 0 1\r\nx\r\n',
    code: 'UNKNOWN_OPERATION',
    serverErrorText: UNKNOWN,
  },
  {
    what: 'a route message',
    input: 'RMSG $G foo 1\r\nx\r\n',
    code: 'UNKNOWN_OPERATION',
    serverErrorText: UNKNOWN,
  },
  {
    what: 'a payload longer than declared',
    input: 'PUB foo 2\r\nhiX\r\n',
    code: 'PAYLOAD_TERMINATOR',
    serverErrorText: UNKNOWN,
  },
  {
    what: 'a payload shorter than declared',
    input: 'PUB foo 5\r\nhi\r\nPING\r\n',
    code: 'PAYLOAD_TERMINATOR',
    serverErrorText: UNKNOWN,
  },
  {
    what: 'a bare LF after the payload',
    input: 'PUB foo 2\nhi\nPING\r\n',
    code: 'PAYLOAD_TERMINATOR',
    serverErrorText: UNKNOWN,
  },
  {
    what: 'a size over max payload',
    input: 'PUB foo 1048577\r\n',
    code: 'MAX_PAYLOAD',
    serverErrorText: 'Maximum Payload Violation',
  },
  {
    what: 'an HPUB total over max payload',
    input: 'HPUB foo 12 1048577\r\n',
    code: 'MAX_PAYLOAD',
    serverErrorText: 'Maximum Payload Violation',
  },
  {
    what: 'a SUB line of 4097 bytes of arguments',
    input: `SUB ${a(4095)} 1\r\n`,
    code: 'MAX_CONTROL_LINE',
    serverErrorText: 'maximum control line exceeded',
  },
  {
    what: 'a CONNECT line of 4097 bytes of arguments',
    input: `CONNECT {"name":"${a(4086)}"}\r\n`,
    code: 'MAX_CONTROL_LINE',
    serverErrorText: 'maximum control line exceeded',
  },
];

/** Streams nats-server accepts without complaint (it answers a PING sent after them). */
export const acceptedInputs: string[] = [
  'pub foo 1\r\nx\r\nSuB foo 1\r\nuNsUb 1\r\n',
  'PUB\tfoo \t bar\t\t2\r\nhi\r\nSUB  foo\t q  9 \r\n',
  'PUB foo 2\nhi\r\nSUB foo 1\nPING\n',
  'PINGX\r\nPING foo\r\nPONGjunk\r\n+OK\r\n+okay\r\n',
  'INFO {"a":1}\r\n',
  'PUB foo 02\r\nhi\r\nHPUB foo 012 000000014\r\nNATS/1.0\r\n\r\nhi\r\n',
  'HPUB foo 0 2\r\nhi\r\nHPUB foo 12 12\r\nNATS/1.0\r\n\r\n\r\n',
  'PUB foo 6\r\n\r\nPUB\n\r\n',
  'UNSUB 1 0\r\nUNSUB 1 x\r\nUNSUB 1 -1\r\n',
  `SUB ${a(4094)} 1\r\nSUB  \t  ${a(4094)} 1\r\nSUB foo 1 ${a(4090)}\r\n`,
  `CONNECT {"name":"${a(4085)}"}\r\n`,
  'PUB grüße.日本 0\r\n\r\n',
];
