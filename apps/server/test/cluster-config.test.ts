import { ServerError } from '@slipstream/server';
import { describe, expect, it } from 'vitest';
import { toClusterOptions } from '../src/cluster-settings.js';
import { ConfigError } from '../src/conf/errors.js';
import { parseConfigText } from '../src/conf/parser.js';
import { validateConfig } from '../src/config.js';
import { parseCommandLine } from '../src/flags.js';
import { mergeSettings } from '../src/settings.js';
import { thrown } from './thrown.js';

const load = (text: string) => validateConfig(parseConfigText(text, 'server.conf', {}));

describe('cluster {}', () => {
  it("maps nats-server's spellings to the library's cluster options", () => {
    const { settings, warnings } = load(`cluster {
      name: east
      listen: "127.0.0.1:6222"
      routes: ["nats-route://a:6222", "nats-route://u:p@b:6222"]
      authorization { user: ruser, password: rpass, timeout: 0.5 }
      no_advertise: true
      connect_retries: 5
    }`);
    expect(warnings).toEqual([]);
    expect(toClusterOptions(settings.cluster)).toEqual({
      name: 'east',
      host: '127.0.0.1',
      port: 6222,
      routes: ['nats-route://a:6222', 'nats-route://u:p@b:6222'],
      authorization: { user: 'ruser', password: 'rpass', timeout: 500 },
      noAdvertise: true,
      connectRetries: 5,
    });
  });

  it.each([
    ['permissions', 'permissions { import: "a.>" }'],
    ['advertise', 'advertise: "x:6222"'],
    ['pool_size', 'pool_size: 3'],
    ['accounts', 'accounts: [A]'],
    ['compression', 'compression: s2_auto'],
  ])('refuses the cluster key %s it does not implement, naming it', (key, line) => {
    const error = thrown(ConfigError, () => load(`cluster {\n port: 6222\n ${line}\n}`));
    expect(error.message).toContain(`cluster key "${key}" not supported yet`);
  });

  it('maps cluster tls {} to file names, and refuses a tls key it does not implement', () => {
    const block = (more: string) => `cluster {
      port: 6222
      tls { cert_file: m.pem, key_file: m-key.pem, ca_file: ca.pem, verify: true, timeout: 3${more} }
    }`;
    expect(load(block('')).settings.cluster?.tls).toEqual({
      cert: 'm.pem',
      key: 'm-key.pem',
      ca: 'ca.pem',
      timeout: 3000,
    });
    const error = thrown(ConfigError, () => load(block(', pinned_certs: [abc]')));
    expect(error.message).toContain('cluster tls key "pinned_certs" not supported yet');
  });

  it('lets flags override the block, --cluster credentials becoming the routes login', () => {
    const file = load('cluster { name: a, port: 6222, routes: ["nats://x:1"] }').settings;
    const flags = parseCommandLine([
      '--cluster',
      'nats://ruser:rpass@127.0.0.1:7000',
      '--routes',
      'nats://y:1, nats://z:2',
    ]).settings;
    expect(toClusterOptions(mergeSettings(file, flags).cluster)).toEqual({
      name: 'a',
      host: '127.0.0.1',
      port: 7000,
      routes: ['nats://y:1', 'nats://z:2'],
      authorization: { user: 'ruser', password: 'rpass' },
    });
  });

  it('takes a bare port as listen, and refuses a cluster without a port', () => {
    expect(toClusterOptions({ listen: '-1' })).toEqual({ port: -1 });
    expect(toClusterOptions({ listen: '0.0.0.0:6222' })).toEqual({ host: '0.0.0.0', port: 6222 });
    const caught = thrown(ServerError, () => toClusterOptions({ name: 'c', routes: 'nats://a:1' }));
    expect(caught.message).toBe('cluster needs a port: give cluster { port } or --cluster');
  });
});
