import { describe, expect, it } from 'vitest';
import { FlagError, flagTable, parseCommandLine, usage } from '../src/flags.js';
import { mergeSettings } from '../src/settings.js';
import { bcryptHash } from './bcrypt-hash.js';
import { thrown } from './thrown.js';

describe('parseCommandLine', () => {
  it.each([
    [['-p', '4333'], { port: 4333 }],
    [['--port', '4333'], { port: 4333 }],
    [['-port', '4333'], { port: 4333 }],
    [['-port=4333'], { port: 4333 }],
    [['--port=4333'], { port: 4333 }],
    [['-p=-1'], { port: -1 }],
    [['-p', '-1'], { port: -1 }],
    [['-a', '127.0.0.1'], { host: '127.0.0.1' }],
    [['--addr=127.0.0.1'], { host: '127.0.0.1' }],
    [['-net', '127.0.0.1'], { host: '127.0.0.1' }],
    [['-n', 'alpha'], { serverName: 'alpha' }],
    [['--name', 'alpha'], { serverName: 'alpha' }],
    [['-server_name=alpha'], { serverName: 'alpha' }],
    [['-m', '8333'], { httpPort: 8333 }],
    [['-http_port', '8333'], { httpPort: 8333 }],
    [['-ms', '8443'], { httpsPort: 8443 }],
    [['--https_port=8443'], { httpsPort: 8443 }],
    [['-user', 'me', '-pass', 'secret'], { authorization: { user: 'me', pass: 'secret' } }],
    [['--user=me', '--pass=a=b'], { authorization: { user: 'me', pass: 'a=b' } }],
    [['-auth', 'tok'], { authorization: { token: 'tok' } }],
    [['--user=me', '--pass', bcryptHash], { authorization: { user: 'me', pass: bcryptHash } }],
    [['-auth', bcryptHash], { authorization: { token: bcryptHash } }],
    [['-D'], { debug: true }],
    [['-V'], { trace: true }],
    [['-DV'], { debug: true, trace: true }],
    [['-DVV'], { debug: true, trace: true }],
    [['--debug=false'], { debug: false }],
    [['-l', '/tmp/x.log'], { logFile: '/tmp/x.log' }],
    [['--log=/tmp/x.log'], { logFile: '/tmp/x.log' }],
    [['-P', '/tmp/x.pid'], { pidFile: '/tmp/x.pid' }],
    [['-js'], { jetstream: { enabled: true } }],
    [['--jetstream', '-sd', '/data'], { jetstream: { enabled: true, storeDir: '/data' } }],
    [['-store_dir=/data'], { jetstream: { storeDir: '/data' } }],
    [
      ['-tls', '-tlscert', 'c.pem', '-tlskey=k.pem'],
      { tls: { enabled: true, cert: 'c.pem', key: 'k.pem' } },
    ],
    [['--tlsverify', '--tlscacert', 'ca.pem'], { tls: { verify: true, ca: 'ca.pem' } }],
  ])('%j', (argv, settings) => {
    expect(parseCommandLine(argv).settings).toEqual(settings);
  });

  it.each([
    [['-c', 'a.conf'], 'a.conf'],
    [['--config', 'a.conf'], 'a.conf'],
    [['-config=a.conf'], 'a.conf'],
  ])('config file %j', (argv, file) => {
    expect(parseCommandLine(argv).configFile).toBe(file);
  });

  it.each([
    [['-h'], 'help'],
    [['--help'], 'help'],
    [['-v'], 'version'],
    [['-version'], 'version'],
    [['-t', '-c', 'x'], 'test'],
    [[], 'run'],
  ])('action of %j', (argv, action) => {
    expect(parseCommandLine(argv).action).toBe(action);
  });

  it('takes the cluster flags, warns about --cluster_advertise; JetStream and TLS flags silently', () => {
    const parsed = parseCommandLine([
      '--cluster',
      'nats://0.0.0.0:6222',
      '-routes=nats://a:6222,nats://b:6222',
      '--cluster_name',
      'c',
      '-cluster_advertise=nats://x:6222',
      '--no_advertise',
      '-connect_retries',
      '3',
      '--tls',
      '-js',
    ]);
    expect(parsed.warnings).toEqual([
      expect.stringContaining('cluster_advertise is not supported'),
    ]);
    expect(parsed.settings).toEqual({
      cluster: {
        listen: 'nats://0.0.0.0:6222',
        routes: 'nats://a:6222,nats://b:6222',
        name: 'c',
        noAdvertise: true,
        connectRetries: 3,
      },
      tls: { enabled: true },
      jetstream: { enabled: true },
    });
  });

  it.each([
    [['--nope'], 'UNKNOWN_FLAG', 'unknown flag: --nope'],
    [['-nope=1'], 'UNKNOWN_FLAG', 'unknown flag: -nope'],
    [['-p'], 'MISSING_VALUE', 'flag needs an argument: -p'],
    [['-p', 'abc'], 'INVALID_VALUE', 'expected an integer'],
    [['-D=maybe'], 'INVALID_VALUE', 'invalid boolean'],
    [['stray'], 'UNEXPECTED_ARGUMENT', 'unexpected argument "stray"'],
    [['--', 'stray'], 'UNEXPECTED_ARGUMENT', 'unexpected argument "stray"'],
  ])('rejects %j', (argv, code, text) => {
    const caught = thrown(FlagError, () => parseCommandLine(argv));
    expect(caught).toBeInstanceOf(FlagError);
    expect(caught.code).toBe(code);
    expect(caught.message).toContain(text);
  });

  it('command-line values override the config file key by key', () => {
    const fromFile = { port: 4222, serverName: 'file', authorization: { user: 'a', pass: 'b' } };
    const flags = parseCommandLine(['-p', '5000', '--pass', 'override']).settings;
    expect(mergeSettings(fromFile, flags)).toEqual({
      port: 5000,
      serverName: 'file',
      authorization: { user: 'a', pass: 'override' },
    });
  });

  it('documents every flag in the help text', () => {
    const text = usage('slipstream-server');
    for (const spec of flagTable) {
      for (const name of spec.names) expect(text).toMatch(new RegExp(`-${name}\\b`));
    }
  });
});
