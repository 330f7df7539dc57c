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
 * What one side of a route reads (nats-server's parser for a ROUTER connection, route protocol
 * v2): the control frames, interest per account (`RS+ <account> <subject> [<queue> <weight>]`,
 * `RS- <account> <subject> [<queue>]`) and messages (`RMSG <account> <subject> [<reply>] <size>`,
 * with queue groups `RMSG <account> <subject> + <reply> <queue>... <size>` or
 * `... | <queue>... <size>`; with headers the verb is HMSG and a header size comes before the
 * total size). We never announce `lnoc`, so a peer sends no LS+/LMSG with a leaf origin.
 */
export type RouteFrame =
  | ControlFrame
  | { op: 'RS+'; account: string; subject: string; queue: string | undefined; weight: number }
  | { op: 'RS-'; account: string; subject: string; queue: string | undefined }
  | {
      op: 'RMSG';
      account: string;
      subject: string;
      reply: string | undefined;
      queues: string[];
      headers: Uint8Array | undefined;
      payload: Uint8Array;
    };

export class RouteParser extends FrameReader<RouteFrame> {
  protected line(verb: string, rest: string): MessageArgs | undefined {
    switch (verb) {
      case 'RS+': {
        const args = splitArgs(rest);
        const [account, subject, queue, weight] = args;
        if (args.length === 2) {
          this.frame({
            op: 'RS+',
            account: account!,
            subject: subject!,
            queue: undefined,
            weight: 1,
          });
          return undefined;
        }
        if (args.length !== 4) throw parseError('processRemoteSub', rest);
        const parsed = parseSize(weight!);
        this.frame({
          op: 'RS+',
          account: account!,
          subject: subject!,
          queue,
          weight: parsed > 0 ? parsed : 1,
        });
        return undefined;
      }
      case 'RS-': {
        const parts = splitArgs(rest);
        if (parts.length < 2 || parts.length > 3) throw parseError('processRemoteUnsub', rest);
        this.frame({ op: 'RS-', account: parts[0]!, subject: parts[1]!, queue: parts[2] });
        return undefined;
      }
      case 'RMSG':
        return this.messageArgs(rest, 2, false, 'processRoutedMsgArgs');
      case 'HMSG':
        return this.messageArgs(rest, 2, true, 'processRoutedHeaderMsgArgs');
      default:
        throw unknownOperation(verb);
    }
  }

  protected message(
    { names, reply, queues }: MessageArgs,
    headers: Uint8Array | undefined,
    payload: Uint8Array,
  ): RouteFrame {
    const [account, subject] = names as [string, string];
    return { op: 'RMSG', account, subject, reply, queues, headers, payload };
  }
}
