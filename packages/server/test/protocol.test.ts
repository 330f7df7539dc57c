import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient } from './raw-client.js';
import { bothServers, closedAfterEach, type RunningTarget } from './targets.js';

const QUIET = 'CONNECT {"verbose":false,"pedantic":false}\r\n';

describe.each(bothServers)('client protocol against $name', (target) => {
  let server: RunningTarget;
  const resources = closedAfterEach(target);
  const connect = () => resources.connect(server);

  beforeAll(async () => {
    server = await target.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('greets with INFO carrying the nats-server fields', async () => {
    const client = await connect();
    expect(client.text).toMatch(/^INFO \{.*\} \r\n$/);
    const info = client.info();
    expect(info.server_id).toMatch(/^N[A-Z0-9]{55}$/);
    expect(info.server_name).toBe(info.server_id);
    expect(info).toMatchObject({
      version: target.version,
      proto: 1,
      host: '127.0.0.1',
      port: server.port,
      headers: true,
      max_payload: 1048576,
      client_ip: '127.0.0.1',
    });
    expect(info.client_id).toEqual(expect.any(Number));
    expect(info.auth_required).toBeUndefined();
    expect(info.ldm).toBeUndefined();
  });

  it('answers +OK for CONNECT, SUB, PUB and UNSUB under verbose, and only PONG for PING', async () => {
    const client = await connect();
    await client.send('CONNECT {"verbose":true}\r\nSUB foo 1\r\nPUB foo 2\r\nhi\r\nUNSUB 1\r\n');
    await client.sync();
    expect(client.afterInfo()).toBe('+OK\r\n+OK\r\n+OK\r\nMSG foo 1 2\r\nhi\r\n+OK\r\nPONG\r\n');
  });

  it('is verbose and pedantic before CONNECT and after an empty CONNECT', async () => {
    const client = await connect();
    await client.send('PUB foo 0\r\n\r\nCONNECT {}\r\nPUB foo.* 0\r\n\r\n');
    await client.sync();
    expect(client.afterInfo()).toBe(
      "+OK\r\n+OK\r\n-ERR 'Invalid Publish Subject'\r\n+OK\r\nPONG\r\n",
    );
  });

  it('rejects an invalid publish subject under pedantic, keeps the connection and still delivers', async () => {
    const client = await connect();
    await client.send(
      'CONNECT {"verbose":false,"pedantic":true}\r\nSUB foo.* 1\r\nPUB foo.* 2\r\nhi\r\n',
    );
    await client.sync();
    expect(client.afterInfo()).toBe(
      "-ERR 'Invalid Publish Subject'\r\nMSG foo.* 1 2\r\nhi\r\nPONG\r\n",
    );
  });

  it('drops a publish to a subject with an empty token when not pedantic', async () => {
    const client = await connect();
    await client.send(`${QUIET}SUB > 1\r\nPUB foo..bar 2\r\nhi\r\nPUB foo.bar 2\r\nok\r\n`);
    await client.sync();
    expect(client.afterInfo()).toBe('MSG foo.bar 1 2\r\nok\r\nPONG\r\n');
  });

  it('answers an invalid SUB subject with -ERR and keeps the connection', async () => {
    const client = await connect();
    await client.send(`${QUIET}SUB foo..bar 1\r\nSUB foo.>.bar 2\r\nSUB foo.b*r 3\r\n`);
    await client.sync();
    expect(client.afterInfo()).toBe("-ERR 'Invalid Subject'\r\n-ERR 'Invalid Subject'\r\nPONG\r\n");
  });

  it('closes with Unknown Protocol Operation on an unknown op', async () => {
    const client = await connect();
    await client.send(`${QUIET}FOO bar\r\n`);
    expect(await client.waitClosed()).toContain("-ERR 'Unknown Protocol Operation'\r\n");
  });

  it('closes with Unknown Protocol Operation when a client sends MSG', async () => {
    const client = await connect();
    await client.send(`${QUIET}MSG foo 1 2\r\nhi\r\n`);
    expect(await client.waitClosed()).toContain("-ERR 'Unknown Protocol Operation'\r\n");
  });

  it('closes with Unknown Protocol Operation when a PUB payload is longer than declared', async () => {
    const client = await connect();
    await client.send(`${QUIET}SUB foo 1\r\n`);
    await client.sync();
    await client.send('PUB foo 3\r\nhello\r\n');
    await client.waitClosed();
    // Closed, so the server has read all of it: the cut-short payload was never delivered.
    expect(client.afterInfo()).toBe("PONG\r\n-ERR 'Unknown Protocol Operation'\r\n");
  });

  it('closes with Unknown Protocol Operation when a PUB payload is shorter than declared', async () => {
    const client = await connect();
    await client.send(`${QUIET}PUB foo 5\r\nhi\r\nPING\r\n`);
    expect(await client.waitClosed()).toContain("-ERR 'Unknown Protocol Operation'\r\n");
    expect(client.text).not.toContain('PONG');
  });

  for (const [what, line] of [
    ['bad CONNECT JSON', 'CONNECT {bad\r\n'],
    ['a PUB without a size', `${QUIET}PUB foo\r\n`],
    ['a PUB with a negative size', `${QUIET}PUB foo -1\r\n`],
    ['a SUB with too many arguments', `${QUIET}SUB a b c d\r\n`],
    ['an HPUB without headers negotiated', `${QUIET}HPUB foo 12 14\r\nNATS/1.0\r\n\r\nhi\r\n`],
    [
      'an empty-header HPUB without headers negotiated',
      `${QUIET}SUB foo 1\r\nHPUB foo 0 2\r\nhi\r\n`,
    ],
  ] as const) {
    it(`closes without -ERR on ${what}`, async () => {
      const client = await connect();
      await client.send(line);
      expect(await client.waitClosed()).not.toMatch(/-ERR|MSG/);
    });
  }

  for (const json of [
    '{"verbose":"yes"}',
    '{"protocol":1.5}',
    '{"protocol":"1"}',
    '{"name":5}',
    '[]',
    '5',
    '',
  ]) {
    it(`closes without -ERR on CONNECT ${json || '(no JSON)'}`, async () => {
      const client = await connect();
      await client.send(`CONNECT ${json}\r\nPING\r\n`);
      expect(await client.waitClosed()).not.toMatch(/-ERR|PONG/);
    });
  }

  it('takes CONNECT null and null fields as "no change"', async () => {
    const client = await connect();
    await client.send('CONNECT null\r\nCONNECT {"verbose":null}\r\n');
    await client.sync();
    expect(client.afterInfo()).toBe('+OK\r\n+OK\r\nPONG\r\n');
  });

  it('closes with invalid client protocol for protocol 2', async () => {
    const client = await connect();
    await client.send('CONNECT {"verbose":false,"protocol":2}\r\n');
    expect(await client.waitClosed()).toContain("-ERR 'invalid client protocol'\r\n");
  });

  it('closes when no_responders is asked for without headers', async () => {
    const client = await connect();
    await client.send('CONNECT {"verbose":false,"no_responders":true}\r\n');
    expect(await client.waitClosed()).toContain(
      "-ERR 'no responders requires headers support'\r\n",
    );
  });

  it('sends a 503 status to a no_responders client whose request nobody listens to', async () => {
    const client = await connect();
    await client.send(
      'CONNECT {"verbose":false,"headers":true,"no_responders":true}\r\nSUB _INBOX.x 7\r\nPUB nobody _INBOX.x 2\r\nhi\r\n',
    );
    await client.sync();
    expect(client.afterInfo()).toBe('HMSG _INBOX.x 7 16 16\r\nNATS/1.0 503\r\n\r\n\r\nPONG\r\n');
  });

  it('does not send a 503 to a client that did not ask for it', async () => {
    const client = await connect();
    await client.send(`${QUIET}SUB _INBOX.x 7\r\nPUB nobody _INBOX.x 2\r\nhi\r\n`);
    await client.sync();
    expect(client.afterInfo()).toBe('PONG\r\n');
  });

  it('relays headers with HMSG to header clients and strips them for others', async () => {
    const withHeaders = await connect();
    const without = await connect();
    await withHeaders.send('CONNECT {"verbose":false,"headers":true}\r\nSUB h 1\r\n');
    await without.send(`${QUIET}SUB h 2\r\n`);
    await withHeaders.sync();
    await without.sync();
    await withHeaders.send('HPUB h 23 25\r\nNATS/1.0\r\nA: bcdefg\r\n\r\nhi\r\n');
    await withHeaders.sync();
    await without.sync();
    expect(withHeaders.afterInfo()).toContain(
      'HMSG h 1 23 25\r\nNATS/1.0\r\nA: bcdefg\r\n\r\nhi\r\n',
    );
    expect(without.afterInfo()).toContain('MSG h 2 2\r\nhi\r\n');
  });

  it('fans a large payload with a reply and headers out intact to every subscriber', async () => {
    // Above the size where a shared message is joined into one array: each receiver gets the
    // pieces uncopied, so the line end must be right for every one of them.
    const payload = 'p'.repeat(5000);
    const headers = 'NATS/1.0\r\nA: b\r\n\r\n';
    const withHeaders = await connect();
    const without = await connect();
    await withHeaders.send(
      'CONNECT {"verbose":false,"headers":true}\r\nSUB big 1\r\nSUB big 2\r\n',
    );
    await without.send(`${QUIET}SUB big 3\r\nSUB * 4\r\n`);
    await withHeaders.sync();
    await without.sync();
    await withHeaders.send(
      `HPUB big r.1 ${headers.length} ${headers.length + payload.length}\r\n${headers}${payload}\r\n`,
    );
    await withHeaders.sync();
    await without.sync();
    const hmsg = (sid: number) =>
      `HMSG big ${sid} r.1 ${headers.length} ${headers.length + payload.length}\r\n${headers}${payload}\r\n`;
    expect(withHeaders.afterInfo()).toContain(hmsg(1));
    expect(withHeaders.afterInfo()).toContain(hmsg(2));
    const msg = (sid: number) => `MSG big ${sid} r.1 ${payload.length}\r\n${payload}\r\n`;
    expect(without.afterInfo()).toContain(msg(3));
    expect(without.afterInfo()).toContain(msg(4));
  });

  it('does not echo a publisher its own messages with echo false, but others get them', async () => {
    const publisher = await connect();
    const other = await connect();
    await publisher.send('CONNECT {"verbose":false,"echo":false,"protocol":1}\r\nSUB e 1\r\n');
    await other.send(`${QUIET}SUB e 2\r\n`);
    await publisher.sync();
    await other.sync();
    await publisher.send('PUB e 2\r\nhi\r\n');
    await publisher.sync();
    await other.sync();
    expect(publisher.afterInfo()).not.toContain('MSG');
    expect(other.afterInfo()).toContain('MSG e 2 2\r\nhi\r\n');
  });

  it('ignores a SUB whose sid is in use', async () => {
    const client = await connect();
    await client.send(`${QUIET}SUB one 1\r\nSUB two 1\r\nPUB two 1\r\na\r\nPUB one 1\r\nb\r\n`);
    await client.sync();
    expect(client.afterInfo()).toBe('MSG one 1 1\r\nb\r\nPONG\r\n');
  });

  it('stops a subscription after UNSUB max messages', async () => {
    const client = await connect();
    await client.send(`${QUIET}SUB m 1\r\nUNSUB 1 2\r\n`);
    for (let i = 0; i < 4; i++) await client.send(`PUB m 1\r\n${i}\r\n`);
    await client.sync();
    expect(client.afterInfo()).toBe('MSG m 1 1\r\n0\r\nMSG m 1 1\r\n1\r\nPONG\r\n');
  });

  it('removes a subscription at once when UNSUB max is not above what it already got', async () => {
    const client = await connect();
    await client.send(
      `${QUIET}SUB m 1\r\nPUB m 1\r\na\r\nPUB m 1\r\nb\r\nUNSUB 1 2\r\nPUB m 1\r\nc\r\n`,
    );
    await client.sync();
    expect(client.afterInfo()).toBe('MSG m 1 1\r\na\r\nMSG m 1 1\r\nb\r\nPONG\r\n');
  });

  it('accepts UNSUB of an unknown sid', async () => {
    const client = await connect();
    await client.send('CONNECT {"verbose":true}\r\nUNSUB 99\r\n');
    await client.sync();
    expect(client.afterInfo()).toBe('+OK\r\n+OK\r\nPONG\r\n');
  });

  it('gives each message to exactly one queue member, and to every plain subscriber', async () => {
    const members = [await connect(), await connect(), await connect()];
    const plain = await connect();
    for (const member of members) await member.send(`${QUIET}SUB work.* workers 1\r\n`);
    await plain.send(`${QUIET}SUB work.> 1\r\n`);
    for (const client of [...members, plain]) await client.sync();
    const publisher = await connect();
    const count = 300;
    let batch = QUIET;
    for (let i = 0; i < count; i++) batch += `PUB work.x ${String(i).length}\r\n${i}\r\n`;
    await publisher.send(batch);
    await publisher.sync();
    const received = [];
    for (const member of members) {
      await member.sync();
      received.push((member.text.match(/MSG work\.x/g) ?? []).length);
    }
    await plain.waitFor(new RegExp(`MSG work\\.x 1 3\\r\\n${count - 1}\\r\\n`));
    expect((plain.text.match(/MSG work\.x/g) ?? []).length).toBe(count);
    expect(received.reduce((a, b) => a + b, 0)).toBe(count);
    // Random choice: each of three members getting none of 300 has odds of about 1e-53.
    for (const n of received) expect(n).toBeGreaterThan(0);
  });

  it('passes a reply subject through, wildcards and all', async () => {
    const client = await connect();
    await client.send(`${QUIET}SUB r 1\r\nPUB r bar.* 2\r\nhi\r\n`);
    await client.sync();
    expect(client.afterInfo()).toBe('MSG r 1 bar.* 2\r\nhi\r\nPONG\r\n');
  });

  it('refuses a reserved reply prefix and keeps the connection', async () => {
    const client = await connect();
    await client.send(`${QUIET}SUB r 1\r\nPUB r _R_.x 2\r\nhi\r\n`);
    await client.sync();
    expect(client.afterInfo()).toBe(
      `-ERR 'Permissions Violation for Publish with Reply of "_R_.x"'\r\nPONG\r\n`,
    );
  });

  it('ignores a client INFO and +OK and processes a second CONNECT again', async () => {
    const client = await connect();
    await client.send(
      'CONNECT {"verbose":false}\r\nINFO {}\r\n+OK\r\nCONNECT {"verbose":true}\r\n',
    );
    await client.sync();
    expect(client.afterInfo()).toBe('+OK\r\nPONG\r\n');
  });

  it('closes silently on a client -ERR', async () => {
    const client = await connect();
    await client.send(`${QUIET}-ERR 'oops'\r\n`);
    expect(await client.waitClosed()).not.toContain('-ERR');
  });

  it('refuses the reserved _sys_ queue and the _GR_. subject prefix, keeping the connection', async () => {
    const client = await connect();
    await client.send(`${QUIET}SUB q _sys_ 1\r\nPUB _GR_.x 1\r\na\r\n`);
    await client.sync();
    expect(client.afterInfo()).toBe(
      `-ERR 'Permissions Violation for Subscription to "q" using queue "_sys_"'\r\n` +
        `-ERR 'Permissions Violation for Publish to "_GR_.x"'\r\nPONG\r\n`,
    );
  });

  it('accepts lower-case ops, tabs between arguments and LF-only control lines', async () => {
    const client = await connect();
    await client.send('connect {"verbose":false}\nsub\tlow\t1\npub low 2\r\nhi\r\nping\n');
    await client.waitFor('PONG\r\n');
    expect(client.afterInfo()).toBe('MSG low 1 2\r\nhi\r\nPONG\r\n');
  });

  it('accepts a control line of 4096 argument bytes and closes on 4097', async () => {
    const ok = await connect();
    const subject = (length: number) => 'a'.repeat(length);
    // `PUB <subject> 0`: the arguments are the subject, a space and the size.
    await ok.send(`${QUIET}PUB ${subject(4094)} 0\r\n\r\n`);
    await ok.sync();
    expect(ok.isClosed).toBe(false);
    const tooLong = await connect();
    await tooLong.send(`${QUIET}PUB ${subject(4095)} 0\r\n\r\n`);
    expect(await tooLong.waitClosed()).toContain("-ERR 'maximum control line exceeded'\r\n");
  });

  it('parses frames split at every byte boundary', async () => {
    const script =
      'CONNECT {"verbose":false,"headers":true}\r\nSUB s 1\r\nPUB s r 5\r\nhello\r\nHPUB s 0 2\r\nok\r\nPING\r\n';
    const expected = 'MSG s 1 r 5\r\nhello\r\nMSG s 1 2\r\nok\r\nPONG\r\n';
    for (let split = 1; split < script.length; split++) {
      const client = await RawClient.connectAndGreet(server.port);
      await client.send(script.slice(0, split));
      await new Promise((resolve) => setImmediate(resolve));
      await client.send(script.slice(split));
      await client.waitFor('PONG\r\n');
      expect(client.afterInfo(), `split at ${split}`).toBe(expected);
      client.close();
    }
  });

  it('parses a stream sent one byte per write', async () => {
    const client = await connect();
    const script = 'CONNECT {"verbose":false}\r\nSUB s 1\r\nPUB s 5\r\nhello\r\nPING\r\n';
    for (const byte of script) await client.send(byte);
    await client.waitFor('PONG\r\n');
    expect(client.afterInfo()).toBe('MSG s 1 5\r\nhello\r\nPONG\r\n');
  });
});
