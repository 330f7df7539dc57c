import {
  type ControlFrame,
  FrameReader,
  type MessageArgs,
  parseError,
  parseSize,
  splitArgs,
  unknownOperation,
} from '../interserver/frame-reader.js';

/**
 * What one side of a leaf node connection reads (nats-server's parser for a LEAF connection):
 * the control frames, interest (`LS+ <subject> [<queue> <weight>]`, `LS- <subject> [<queue>]`)
 * and messages (`LMSG <subject> [<reply>] <size>`, with queue groups
 * `LMSG <subject> + <reply> <queue>... <size>` or `LMSG <subject> | <queue>... <size>`; with
 * headers the verb is HMSG and a header size comes before the total size).
 */
export type LeafFrame =
  | ControlFrame
  | { op: 'LS+'; subject: string; queue: string | undefined; weight: number }
  | { op: 'LS-'; subject: string; queue: string | undefined }
  | {
      op: 'LMSG';
      subject: string;
      reply: string | undefined;
      queues: string[];
      headers: Uint8Array | undefined;
      payload: Uint8Array;
    };

export class LeafParser extends FrameReader<LeafFrame> {
  protected line(verb: string, rest: string): MessageArgs | undefined {
    switch (verb) {
      case 'LS+':
        this.frame(leafSub(rest));
        return undefined;
      case 'LS-': {
        const args = splitArgs(rest);
        if (args.length < 1 || args.length > 2) throw parseError('processLeafUnsub', rest);
        this.frame({ op: 'LS-', subject: args[0]!, queue: args[1] });
        return undefined;
      }
      case 'LMSG':
        return this.messageArgs(rest, 1, false, 'processLeafMsgArgs');
      case 'HMSG':
        return this.messageArgs(rest, 1, true, 'processLeafHeaderMsgArgs');
      default:
        throw unknownOperation(verb);
    }
  }

  protected message(
    { names, reply, queues }: MessageArgs,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
  ): LeafFrame {
    return { op: 'LMSG', subject: names[0]!, reply, queues, headers, payload };
  }
}

function leafSub(rest: string): LeafFrame {
  const args = splitArgs(rest);
  if (args.length === 1) return { op: 'LS+', subject: args[0]!, queue: undefined, weight: 1 };
  if (args.length === 3) {
    const weight = parseSize(args[2]!);
    return { op: 'LS+', subject: args[0]!, queue: args[1], weight: weight > 0 ? weight : 1 };
  }
  throw parseError('processLeafSub', rest);
}
