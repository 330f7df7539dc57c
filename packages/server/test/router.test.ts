import { describe, expect, it } from 'vitest';
import { Router } from '../src/router.js';
import { type Subscriber, Subscription } from '../src/subscription.js';

/** A subscriber that counts what it is given (the router calls nothing else of it here). */
function counter(): { subscriber: Subscriber; received: () => number } {
  let received = 0;
  const subscriber = {
    cid: 1,
    echo: true,
    noResponders: false,
    deliver: () => {
      received++;
      return true;
    },
  } as unknown as Subscriber;
  return { subscriber, received: () => received };
}

describe('Router', () => {
  it('routes JetStream ack subjects without caching their match, and caches the rest', () => {
    const router = new Router();
    const { subscriber: acks, received } = counter();
    router.subscribe(new Subscription(acks, '$JS.ACK.S.C.>', undefined, '1'));
    router.subscribe(new Subscription(acks, 'orders', undefined, '2'));
    router.publish(acks, 'orders', undefined, undefined, new Uint8Array());
    for (let i = 0; i < 2000; i++) {
      router.publish(acks, `$JS.ACK.S.C.1.${i}.${i}.0.0`, undefined, undefined, new Uint8Array());
    }
    expect(received()).toBe(2001);
    expect(router.sublist.stats().num_cache).toBe(1);
    router.publish(acks, 'orders', undefined, undefined, new Uint8Array());
    expect(router.sublist.stats().cache_hit_rate).toBe(1 / 2002);
  });

  it('answers requests nobody serves without caching their one-off reply inboxes', () => {
    const router = new Router();
    const { subscriber: requester, received } = counter();
    Object.assign(requester, { noResponders: true });
    router.subscribe(new Subscription(requester, '_INBOX.abc.*', undefined, '1'));
    for (let i = 0; i < 500; i++) {
      router.publish(requester, 'service.down', `_INBOX.abc.${i}`, undefined, new Uint8Array());
    }
    expect(received()).toBe(500);
    expect(router.sublist.stats().num_cache).toBe(1);
  });
});
