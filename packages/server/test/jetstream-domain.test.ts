/**
 * Under a JetStream domain, answers name it where nats-server 2.9.10 names it: the account info
 * (after `limits`), the stream info of UPDATE, INFO and LIST (after `state`) and every PubAck;
 * not the stream info of CREATE, nor consumer infos. Side by side, on `$JS.<domain>.API` and on
 * `$JS.API` alike.
 */
import { type ApiOperationName, decodeApiResponse } from '@slipstream/jsapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { comparable, JsProbe, type JsTarget, startOurJs, startReferenceJs } from './js-probe.js';

const DOMAIN = 'ABC';
const ORDERS = { name: 'ORDERS', subjects: ['orders.*'] };

type Answer = Record<string, unknown>;

/** The requests of the scenario, each with the operation whose schema its answer must pass. */
const requests: Array<[ApiOperationName | 'publish', string, unknown?]> = [
  ['accountInfo', `$JS.${DOMAIN}.API.INFO`],
  ['accountInfo', '$JS.API.INFO'],
  ['streamCreate', `$JS.${DOMAIN}.API.STREAM.CREATE.ORDERS`, ORDERS],
  ['streamInfo', `$JS.${DOMAIN}.API.STREAM.INFO.ORDERS`],
  ['streamInfo', '$JS.API.STREAM.INFO.ORDERS'],
  ['streamUpdate', '$JS.API.STREAM.UPDATE.ORDERS', { ...ORDERS, max_msgs: 10 }],
  ['streamList', `$JS.${DOMAIN}.API.STREAM.LIST`],
  [
    'consumerCreate',
    '$JS.API.CONSUMER.CREATE.ORDERS',
    { stream_name: 'ORDERS', config: { ack_policy: 'explicit' } },
  ],
  ['publish', 'orders.new', 'one'],
];

async function answers(target: JsTarget): Promise<Answer[]> {
  const api = await JsProbe.connect(target.port);
  try {
    const answered: Answer[] = [];
    for (const [, subject, body] of requests) answered.push(await api.request(subject, body));
    return answered;
  } finally {
    api.close();
  }
}

/** Where `domain` sits among an answer's top-level fields, and its value. */
function domainPlacement(answer: Answer) {
  const keys = Object.keys(answer).filter((key) => key !== 'ts' && key !== 'type');
  const at = keys.indexOf('domain');
  return { domain: answer.domain, after: at > 0 ? keys[at - 1] : undefined };
}

describe(`answers under JetStream domain ${DOMAIN}, against nats-server 2.9.10 and ours`, () => {
  let ours: Answer[];
  let reference: Answer[];

  beforeAll(async () => {
    const [mine, theirs] = await Promise.all([
      startOurJs({ domain: DOMAIN }),
      startReferenceJs({ domain: DOMAIN }),
    ]);
    try {
      [ours, reference] = await Promise.all([answers(mine), answers(theirs)]);
    } finally {
      await Promise.all([mine.stop(), theirs.stop()]);
    }
  });

  it('name the domain in the same answers, at the same place', () => {
    expect(ours.map(domainPlacement)).toEqual(reference.map(domainPlacement));
    expect(reference.map(domainPlacement)).toEqual([
      { domain: DOMAIN, after: 'limits' },
      { domain: DOMAIN, after: 'limits' },
      { domain: undefined, after: undefined },
      { domain: DOMAIN, after: 'state' },
      { domain: DOMAIN, after: 'state' },
      { domain: DOMAIN, after: 'state' },
      { domain: undefined, after: undefined },
      { domain: undefined, after: undefined },
      { domain: DOMAIN, after: 'stream' },
    ]);
    const listed = (answer: Answer) => (answer.streams as Answer[]).map(domainPlacement);
    expect(listed(ours[6]!)).toEqual(listed(reference[6]!));
    expect(listed(reference[6]!)).toEqual([{ domain: DOMAIN, after: 'state' }]);
  });

  it('give the same account info, field for field', () => {
    expect(Object.keys(ours[0]!)).toEqual(Object.keys(reference[0]!));
    expect(comparable(ours[1])).toEqual(comparable(reference[1]));
  });

  it('pass the jsapi schemas with the domain kept', () => {
    for (const [index, [operation]] of requests.entries()) {
      if (operation === 'publish') continue;
      const decoded = decodeApiResponse(operation, JSON.stringify(ours[index]));
      expect(decoded.ok, operation).toBe(true);
      if (decoded.ok) expect((decoded.value as Answer).domain).toBe(ours[index]!.domain);
    }
  });
});
