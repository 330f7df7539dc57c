// A deliberately tiny NATS client over node:net for recording fixtures: CONNECT, SUB, PUB/HPUB
// and MSG/HMSG parsing, nothing else. It writes the protocol frames itself so that the
// recordings do not depend on any of our unfinished client packages.
import { connect } from 'node:net';

const CRLF = '\r\n';

export async function rawConnect(port) {
  const socket = connect(port, '127.0.0.1');
  let buffer = Buffer.alloc(0);
  const listeners = new Map(); // sid -> fn(msg)
  let sid = 0;
  let inbox = 0;
  let pong;

  const handle = () => {
    for (;;) {
      const end = buffer.indexOf(CRLF);
      if (end < 0) return;
      const line = buffer.subarray(0, end).toString();
      const [op, ...args] = line.split(' ').filter(Boolean);
      if (op === 'MSG' || op === 'HMSG') {
        const headerBytes = op === 'HMSG' ? Number(args.at(-2)) : 0;
        const total = Number(args.at(-1));
        if (buffer.length < end + 2 + total + 2) return;
        const body = buffer.subarray(end + 2, end + 2 + total);
        const reply = args.length === (op === 'HMSG' ? 5 : 4) ? args[2] : undefined;
        const msg = {
          subject: args[0],
          reply,
          headers: headerBytes ? body.subarray(0, headerBytes).toString() : undefined,
          data: body.subarray(headerBytes).toString(),
          bytes: Buffer.from(body.subarray(headerBytes)),
        };
        buffer = buffer.subarray(end + 2 + total + 2);
        listeners.get(args[1])?.(msg);
        continue;
      }
      buffer = buffer.subarray(end + 2);
      if (op === 'PING') socket.write(`PONG${CRLF}`);
      else if (op === 'PONG') pong?.();
      else if (op === '-ERR') console.error('server:', line);
    }
  };
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    handle();
  });
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const options = {
    verbose: false,
    pedantic: false,
    headers: true,
    no_responders: true,
    protocol: 1,
    lang: 'fixtures',
  };
  socket.write(`CONNECT ${JSON.stringify(options)}${CRLF}`);

  const flush = () =>
    new Promise((resolve) => {
      pong = resolve;
      socket.write(`PING${CRLF}`);
    });

  const subscribe = async (subject, onMessage) => {
    const id = String(++sid);
    listeners.set(id, onMessage);
    socket.write(`SUB ${subject} ${id}${CRLF}`);
    await flush();
    return () => socket.write(`UNSUB ${id}${CRLF}`);
  };

  const publish = (subject, body = '', { reply, headers } = {}) => {
    const payload = Buffer.from(body);
    const replyPart = reply ? ` ${reply}` : '';
    if (headers) {
      const block = Buffer.from(
        `NATS/1.0${CRLF}${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}${CRLF}`)
          .join('')}${CRLF}`,
      );
      socket.write(
        `HPUB ${subject}${replyPart} ${block.length} ${block.length + payload.length}${CRLF}`,
      );
      socket.write(Buffer.concat([block, payload, Buffer.from(CRLF)]));
    } else {
      socket.write(`PUB ${subject}${replyPart} ${payload.length}${CRLF}`);
      socket.write(Buffer.concat([payload, Buffer.from(CRLF)]));
    }
  };

  /**
   * Sends a request and collects replies until `count` arrived or `timeoutMs` passed
   * (bounded both ways). Returns the messages received, possibly none.
   */
  const request = async (subject, body = '', { headers, count = 1, timeoutMs = 1500 } = {}) => {
    const reply = `_INBOX.fx.${++inbox}`;
    const messages = [];
    let done;
    const finished = new Promise((resolve) => {
      done = resolve;
    });
    const unsubscribe = await subscribe(reply, (msg) => {
      messages.push(msg);
      if (messages.length >= count) done();
    });
    const timer = setTimeout(done, timeoutMs);
    publish(subject, body, { reply, headers });
    await finished;
    clearTimeout(timer);
    unsubscribe();
    return messages;
  };

  return {
    subscribe,
    publish,
    request,
    flush,
    close: () => new Promise((resolve) => socket.end(resolve)),
  };
}
