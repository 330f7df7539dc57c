import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { connect as connectClient } from '@nats-io/transport-node';
import { NATS_COMPATIBLE_VERSION } from '@slipstream/server';
import { freePort, waitForPort } from '@slipstream/test-servers';
import { describe, expect, it, vi } from 'vitest';
import packageJson from '../package.json' with { type: 'json' };
import { refusedKeys } from '../src/unsupported.js';
import { listeningPorts } from './listening-ports.js';
import {
  expectPrinted,
  linesUntilClosed,
  readInfo,
  run,
  serving,
  useTempDir,
} from './server-process.js';

// For what lands a moment after the port opens: retried every 20 ms; 10 s is only a safety net.
const retry = { timeout: 10_000, interval: 20 };

describe('slipstream-server process', () => {
  const tempDir = useTempDir('slipstream-server-e2e-');
  const portsFile = (pid: number | undefined) => join(tempDir(), `slipstream-server_${pid}.ports`);
  /** Polls for the ports file, as a harness does: it lands just after the ready line. */
  const readPortsFile = async (pid: number | undefined) =>
    JSON.parse(await vi.waitFor(() => readFile(portsFile(pid), 'utf8'), retry));

  it('serves clients and monitoring, then exits cleanly on SIGTERM', async () => {
    const httpPort = await freePort();
    const pidFile = join(tempDir(), 'server.pid');
    await serving(['-m', String(httpPort), '-n', 'e2e', '-P', pidFile], async (port, server) => {
      const info = await readInfo(port);
      expect(info).toMatchObject({
        port,
        server_name: 'e2e',
        version: NATS_COMPATIBLE_VERSION,
        proto: 1,
        headers: true,
      });
      await waitForPort(httpPort, server.child, server.output);
      const varz = await (await fetch(`http://127.0.0.1:${httpPort}/varz`)).json();
      expect(varz).toMatchObject({ port, server_name: 'e2e', http_port: httpPort });
      expect(await readFile(pidFile, 'utf8')).toBe(String(server.child.pid));
      await expectPrinted(server, 'Server is ready');
    });
    await expect(readFile(pidFile, 'utf8')).rejects.toThrow();
  });

  it('writes a ports file like nats-server for -p -1 --ports_file_dir, and removes it on exit', async () => {
    const server = run(['-a', '127.0.0.1', '-p', '-1', '-m', '-1', '--ports_file_dir', tempDir()]);
    try {
      const ports = await readPortsFile(server.child.pid);
      expect(ports).toEqual({
        nats: [expect.stringMatching(/^nats:\/\/127\.0\.0\.1:\d+$/)],
        monitoring: [expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/)],
      });
      const port = Number(new URL(ports.nats[0]).port);
      const httpPort = Number(new URL(ports.monitoring[0]).port);
      expect(listeningPorts(server.child.pid!)).toEqual([port, httpPort].sort((a, b) => a - b));
      expect(await readInfo(port)).toMatchObject({ port });
      expect(await fetch(`${ports.monitoring[0]}/healthz`).then((r) => r.status)).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exit).toBe(0);
    await expect(readFile(portsFile(server.child.pid), 'utf8')).rejects.toThrow();
  });

  it('opens no monitoring port unless -m asks for one, like nats-server', async () => {
    const server = run(['-a', '127.0.0.1', '-p', '-1', '--ports_file_dir', tempDir()]);
    try {
      const ports = await readPortsFile(server.child.pid);
      expect(ports).toEqual({ nats: [expect.stringMatching(/^nats:\/\/127\.0\.0\.1:\d+$/)] });
      // The ports file is written once every listener is open: the client port is the only one.
      expect(listeningPorts(server.child.pid!)).toEqual([Number(new URL(ports.nats[0]).port)]);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exit).toBe(0);
    expect(server.output()).not.toMatch(/monitor/i);
  });

  it('reads a config file and lets flags override it (stopping on SIGINT)', async () => {
    const config = join(tempDir(), 'server.conf');
    await writeFile(
      config,
      'port: 1\nserver_name: from-file\nmax_payload: 2KB\ngateway { port: 7222 }\n',
    );
    await serving(
      ['-config', config, '-m', '0'],
      async (port, server) => {
        expect(await readInfo(port)).toMatchObject({
          port,
          server_name: 'from-file',
          max_payload: 2048,
        });
        await expectPrinted(server, 'gateways are not supported');
      },
      'SIGINT',
    );
  });

  it('runs JetStream with -js -sd: a stream and its messages outlive a restart', async () => {
    const storeDir = join(tempDir(), 'js-restart');
    const request = async (port: number, subject: string, body: string) => {
      const nc = await connectClient({ servers: `127.0.0.1:${port}`, reconnect: false });
      try {
        return JSON.parse((await nc.request(subject, body, { timeout: 5_000 })).string());
      } finally {
        await nc.close();
      }
    };
    await serving(['-js', '-sd', storeDir, '-m', '0'], async (port, server) => {
      expect(await readInfo(port)).toMatchObject({ jetstream: true });
      await expectPrinted(server, 'Starting JetStream');
      const created = await request(
        port,
        '$JS.API.STREAM.CREATE.ORDERS',
        '{"name":"ORDERS","subjects":["orders.>"]}',
      );
      expect(created).toMatchObject({ did_create: true, config: { storage: 'file' } });
      expect(await request(port, 'orders.a', 'first')).toEqual({ stream: 'ORDERS', seq: 1 });
    });
    await serving(['-js', '-sd', storeDir, '-m', '0'], async (port) => {
      const info = await request(port, '$JS.API.STREAM.INFO.ORDERS', '');
      expect(info.state).toMatchObject({ messages: 1, first_seq: 1, last_seq: 1 });
      expect(await request(port, 'orders.b', 'second')).toEqual({ stream: 'ORDERS', seq: 2 });
    });
    await readFile(join(storeDir, 'jetstream', '%24G', 'streams', 'ORDERS', 'meta.json'));
  });

  it('admits only the credentials given by --user and --pass', async () => {
    await serving(['-m', '0', '--user=app', '-pass', 'secret'], async (port) => {
      expect(await readInfo(port)).toMatchObject({ auth_required: true });

      const nc = await connectClient({
        servers: `127.0.0.1:${port}`,
        user: 'app',
        pass: 'secret',
        reconnect: false,
      });
      try {
        const received = new Promise<string>((resolve) => {
          nc.subscribe('greeting', { max: 1, callback: (_error, msg) => resolve(msg.string()) });
        });
        nc.publish('greeting', 'hello');
        expect(await received).toBe('hello');
      } finally {
        await nc.close();
      }

      for (const credentials of [
        { user: 'app', pass: 'wrong' },
        { user: 'other', pass: 'secret' },
        {},
      ]) {
        const connectLine = JSON.stringify({ verbose: false, protocol: 1, ...credentials });
        const lines = await linesUntilClosed(port, `CONNECT ${connectLine}\r\nPING\r\n`);
        expect(lines.slice(1)).toEqual(["-ERR 'Authorization Violation'"]);
      }
    });
  });

  it('writes its log to the -l file instead of stderr', async () => {
    const logFile = join(tempDir(), 'server.log');
    await serving(['-m', '0', '-l', logFile], async (_port, server) => {
      // The port can open a moment before the ready line is appended.
      await vi.waitFor(
        async () => expect(await readFile(logFile, 'utf8')).toContain('Server is ready'),
        retry,
      );
      expect(server.output()).not.toContain('Server is ready');
    });
  });

  it('logs a subject to the -l file as the bytes the client sent, even when not UTF-8', async () => {
    const logFile = join(tempDir(), 'bytes.log');
    await serving(['-l', logFile, '-V'], async (port) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('data', () => socket.write(Buffer.from('SUB \xff.a 1\r\n', 'latin1')));
      const trace = '<<- [SUB \xff.a 1]';
      try {
        await vi.waitFor(
          async () => expect((await readFile(logFile)).toString('latin1')).toContain(trace),
          retry,
        );
      } finally {
        socket.destroy();
      }
    });
  });

  it('checks a config file with -t and exits, warning about what it ignores', async () => {
    const config = join(tempDir(), 'ok.conf');
    await writeFile(config, 'port: 4222\ngateway { port: 7222 }\n');
    const check = run(['-t', '-c', config]);
    expect(await check.exit).toBe(0);
    expect(check.output()).toContain(`${config}:2: gateway: this server joins no super-cluster`);
    expect(check.output()).toContain('test is successful');
  });

  it.each([['mqtt', 'mqtt {\n  port: 1883\n}']])(
    'refuses to start, also under -t, with a %s block it would ignore',
    async (key, block) => {
      const config = join(tempDir(), `${key}.conf`);
      await writeFile(config, `port: -1\n${block}\n`);
      for (const args of [
        ['-a', '127.0.0.1', '-m', '0', '-c', config],
        ['-t', '-c', config],
      ]) {
        const server = run(args);
        expect(await server.exit).toBe(1);
        expect(server.output()).toContain(
          `${config}:2: ${key}: ${refusedKeys[key]}; refusing to start`,
        );
        expect(server.output()).not.toMatch(/Server is ready|test is successful/);
      }
    },
  );

  it.each([
    ['an nkey that is not one', '{ nkey: UBAD }', 'users[0]: not a public user nkey: UBAD'],
    [
      'an invalid permission subject',
      '{ user: a, permissions: { publish: "a..b" } }',
      'users[0].permissions.publish.allow: "a..b" is not a valid subject',
    ],
  ])('fails -t, as nats-server does, on %s', async (_what, user, message) => {
    const config = join(tempDir(), 'auth.conf');
    await writeFile(config, `authorization { users: [ ${user} ] }\n`);
    const check = run(['-t', '-c', config]);
    expect(await check.exit).toBe(1);
    expect(check.output()).toContain(message);
    expect(check.output()).not.toContain('test is successful');
  });

  it('refuses to start with -ms but no TLS certificate to serve HTTPS with, as nats-server', async () => {
    const server = run(['-a', '127.0.0.1', '-p', '-1', '-ms', '8443']);
    expect(await server.exit).toBe(1);
    expect(server.output()).toContain('could not start: httpsPort needs tls (its cert and key)');
  });

  it('enters lame duck mode on SIGUSR2: tells clients (ldm), then exits', async () => {
    const port = await freePort();
    const config = join(tempDir(), 'ldm.conf');
    await writeFile(config, 'lame_duck_duration: "1s"\nlame_duck_grace_period: "100ms"\n');
    const server = run(['-c', config, '-a', '127.0.0.1', '-p', String(port), '-m', '0']);
    await waitForPort(port, server.child, server.output);
    const lines: string[] = [];
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.on('data', (chunk) => lines.push(...String(chunk).split('\r\n')));
    socket.write('CONNECT {"verbose":false,"protocol":1}\r\nPING\r\n');
    await vi.waitFor(() => expect(lines).toContain('PONG'), retry);
    server.child.kill('SIGUSR2');
    expect(await server.exit).toBe(0);
    socket.destroy();
    const infos = lines
      .filter((line) => line.startsWith('INFO '))
      .map((line) => JSON.parse(line.slice(5)));
    expect(infos.some((info) => info.ldm === true)).toBe(true);
    await expectPrinted(server, 'lame duck');
  });

  it('exits 1 with a clear message on an unknown flag', async () => {
    const server = run(['--no-such-flag']);
    expect(await server.exit).toBe(1);
    await expectPrinted(server, 'unknown flag: --no-such-flag');
  });

  it('exits 1 naming file, line and key for a bad config', async () => {
    const config = join(tempDir(), 'bad.conf');
    await writeFile(config, 'port: 4222\nmax_payload: lots\n');
    const server = run(['-c', config]);
    expect(await server.exit).toBe(1);
    expect(server.output()).toContain(`${config}:2: max_payload: expected a size`);
  });

  it.each(['-v', '--version'])(
    '%s prints the nats-server version it implements first, as tools read it, then its own',
    async (flag) => {
      const server = run([flag]);
      expect(await server.exit).toBe(0);
      expect(server.output().match(/v\d+\.\d+\.\d+/)?.[0]).toBe(`v${NATS_COMPATIBLE_VERSION}`);
      expect(server.output()).toBe(
        `slipstream-server: v${NATS_COMPATIBLE_VERSION} (slipstream ${packageJson.version})\n`,
      );
    },
  );

  it('prints help', async () => {
    const server = run(['-h']);
    expect(await server.exit).toBe(0);
    await expectPrinted(server, 'Usage: slipstream-server [options]');
  });
});
