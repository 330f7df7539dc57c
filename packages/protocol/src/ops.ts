/**
 * Frames the parsers produce.
 *
 * Strings are decoded UTF-8. A `payload` (and `headers`) may be a view into the chunk that was
 * passed to `parse()` rather than a copy: do not mutate a chunk after parsing it, and copy the
 * payload if you keep it longer than the chunk lives. Node socket chunks are never reused, so
 * keeping the view is safe there.
 */

/** What a server receives from a client. */
export type ClientFrame =
  /** `json` is the raw JSON text (possibly empty or invalid: the server decides what to do). */
  | { op: 'CONNECT'; json: string }
  /**
   * PUB and HPUB. `headers` is the raw header block (including its final `\r\n\r\n`) for HPUB,
   * and `undefined` for PUB or an HPUB with a zero-length header block, so a consumer that only
   * relays messages needs no extra check. `hpub` says which op it was: nats-server refuses an HPUB,
   * even an empty one, from a client that did not negotiate headers. A plain boolean on every frame
   * keeps that check to one field read on the publish path.
   */
  | {
      op: 'PUB';
      subject: string;
      reply: string | undefined;
      headers: Uint8Array | undefined;
      payload: Uint8Array;
      hpub: boolean;
    }
  | { op: 'SUB'; subject: string; queue: string | undefined; sid: string }
  /** `max` is `undefined` when absent or not a valid size (nats-server then treats it as no limit). */
  | { op: 'UNSUB'; sid: string; max: number | undefined }
  | { op: 'PING' }
  | { op: 'PONG' }
  /** A client may send INFO; nats-server parses it and otherwise ignores it. */
  | { op: 'INFO'; json: string }
  /** A client may send +OK; nats-server ignores it. */
  | { op: 'OK' };

/** What a client receives from a server. */
export type ServerFrame =
  | { op: 'INFO'; json: string }
  /** MSG and HMSG; `headers` as for {@link ClientFrame} PUB. `sid` is echoed verbatim. */
  | {
      op: 'MSG';
      subject: string;
      sid: string;
      reply: string | undefined;
      headers: Uint8Array | undefined;
      payload: Uint8Array;
    }
  | { op: 'PING' }
  | { op: 'PONG' }
  | { op: 'OK' }
  /** `message` is the text inside the single quotes of `-ERR '…'`. */
  | { op: 'ERR'; message: string };

export type ClientOp = ClientFrame['op'];
export type ServerOp = ServerFrame['op'];
