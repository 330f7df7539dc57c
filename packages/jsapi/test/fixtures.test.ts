import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ApiOperationName,
  apiOperations,
  apiSubjectPatterns,
  decodeApiRequest,
  decodeApiResponse,
  formatAckSubject,
  jsErrorByCode,
  jsEventSchemaForType,
  parseAckSubject,
  parseApiSubject,
  pubAckSchema,
  responseError,
} from '../src/index.js';
import { fixturesDir, readFixture } from './support/fixtures.js';

interface Recorded {
  name: string;
  subject: string;
  operation: ApiOperationName | null;
  request: string;
  requestHeaders?: Record<string, string>;
  replies: { reply?: string; headers?: string; data: string }[];
}

const calls = readdirSync(join(fixturesDir, 'api'))
  .sort()
  .map((file) => readFixture<Recorded>('api', file));
const events = readdirSync(join(fixturesDir, 'events')).map((file) => ({
  file,
  ...readFixture<{ subject: string; data: string }>('events', file),
}));

const jsonReplies = calls.filter(
  (c) => c.operation && apiOperations[c.operation].response && c.replies.length > 0,
);
const pubAcks = calls.filter((c) => c.name.startsWith('pub-ack'));

describe('fixtures recorded from nats-server 2.9.10', () => {
  it('were recorded', () => {
    expect(calls.length).toBeGreaterThan(100);
    expect(jsonReplies.length).toBeGreaterThan(80);
  });

  it.each(jsonReplies.map((c) => [c.name, c] as const))(
    '%s: the response parses and re-encodes to equivalent JSON',
    (_, call) => {
      const raw = call.replies[0]!.data;
      const decoded = decodeApiResponse(call.operation!, raw);
      if (!decoded.ok) throw new Error(`${call.name}: ${decoded.error.message}`);
      expect(JSON.parse(JSON.stringify(decoded.value))).toEqual(JSON.parse(raw));
    },
  );

  it.each(pubAcks.map((c) => [c.name, c] as const))('%s: the PubAck parses', (_, call) => {
    const raw = call.replies[0]!.data;
    const parsed = pubAckSchema.parse(JSON.parse(raw));
    expect(JSON.parse(JSON.stringify(parsed))).toEqual(JSON.parse(raw));
  });

  it.each(events.map((e) => [e.file, e] as const))('%s: the event parses', (_, event) => {
    const json = JSON.parse(event.data);
    const schema = jsEventSchemaForType(json.type);
    expect(schema, json.type).toBeDefined();
    expect(JSON.parse(JSON.stringify(schema!.parse(json)))).toEqual(json);
  });

  it('every error the server sent is in the catalog with the same HTTP-like code', () => {
    const errors = [...jsonReplies, ...pubAcks]
      .map((c) => responseError(JSON.parse(c.replies[0]!.data)))
      .filter((e) => e !== undefined);
    expect(errors.length).toBeGreaterThan(30);
    for (const error of errors) {
      const entry = jsErrorByCode(error.errCode);
      expect(entry, `err_code ${error.errCode}`).toBeDefined();
      expect(error.code).toBe(entry!.code);
    }
  });

  it('the server accepted every request our request schemas accept, and vice versa for shape errors', () => {
    // Replies on non-API subjects (the restore upload's end) have no API request to check.
    for (const call of jsonReplies.filter((c) => parseApiSubject(c.subject))) {
      const serverError = responseError(JSON.parse(call.replies[0]!.data));
      const decoded = decodeApiRequest(call.operation!, call.request);
      if (!serverError) expect(decoded.ok, call.name).toBe(true);
      if (serverError?.errCode === 10025) expect(decoded.ok, call.name).toBe(false);
    }
  });

  it('ack reply subjects of pulled messages parse and format back unchanged', () => {
    const acks = calls
      .filter((c) => c.operation === 'consumerNext')
      .flatMap((c) => c.replies.map((r) => r.reply))
      .filter((reply): reply is string => reply?.startsWith('$JS.ACK.') ?? false);
    expect(acks.length).toBeGreaterThan(3);
    for (const subject of acks) {
      const info = parseAckSubject(subject);
      expect(info?.stream).toBe('ORDERS');
      expect(formatAckSubject(info!)).toBe(subject);
    }
  });

  it('covers every API subject nats-server 2.9.10 has', () => {
    const newerOnly = new Set<ApiOperationName>([
      'streamPeerEvacuate',
      'streamCancelMove',
      'consumerPause',
      'consumerUnpin',
      'consumerReset',
      'metaRescue',
      'serverEvacuate',
      'accountStreamCancelMove',
    ]);
    const seen = new Set(calls.map((c) => c.operation));
    const missing = (Object.keys(apiSubjectPatterns) as ApiOperationName[]).filter(
      (op) => !seen.has(op) && !newerOnly.has(op),
    );
    expect(missing).toEqual([]);
  });
});
