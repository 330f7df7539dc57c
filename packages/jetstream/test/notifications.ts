import type { ConsumerNotification } from '../src/mod.js';

/**
 * Every notification of `messages` from now until its consumption ends: `seen` fills as they
 * come, `done` resolves with them all at the end.
 */
export function collectNotifications(messages: { status(): AsyncIterable<ConsumerNotification> }) {
  const seen: ConsumerNotification[] = [];
  const done = (async () => {
    for await (const n of messages.status()) seen.push(n);
    return seen;
  })();
  return { seen, done };
}
