/**
 * Rebuilds a store from messages taken out of another one (a snapshot's frozen copy of a memory
 * stream, a restore), keeping every sequence and time: gaps stay deleted sequences, and the
 * last sequence is reproduced even when its message is gone, so consumers' positions and the
 * next publish's sequence are the same as in the original.
 */
import type { MessageStore, StoredMessage } from '../store/message-store.js';

/** The subject of the stand-in for a last sequence whose message was deleted. */
const LAST_SEQ_STAND_IN = '_SLIP.RESTORE.LAST';

/** Appends `message` at its own sequence and time (above every sequence the store holds). */
export function replayMessage(target: MessageStore, message: StoredMessage): void {
  target.store(message.subject, message.headers, message.payload, {
    seq: message.seq,
    time: message.time,
  });
}

/**
 * Moves the store's last sequence to `lastSeq` as a delete does: a stand-in message is stored
 * there and removed, which leaves its sequence and time as the last ones.
 */
export function replayLastSeq(target: MessageStore, lastSeq: number, lastTime: bigint): void {
  if (lastSeq <= target.state().lastSeq) return;
  target.store(LAST_SEQ_STAND_IN, undefined, new Uint8Array(0), { seq: lastSeq, time: lastTime });
  target.remove(lastSeq);
}

/** Every message of `source` into `target` (empty), and its last sequence. */
export function replayAll(source: MessageStore, target: MessageStore): void {
  for (let m = source.loadNext('', 0); m; m = source.loadNext('', m.seq + 1)) {
    replayMessage(target, m);
  }
  const { lastSeq, lastTime } = source.state();
  replayLastSeq(target, lastSeq, lastTime);
}
