import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/conf/errors.js';
import { parseConfigText } from '../src/conf/parser.js';
import { loadConfigFile, validateConfig } from '../src/config.js';
import { refusedKeys, warnedKeys } from '../src/unsupported.js';
import { bcryptHash } from './bcrypt-hash.js';
import { thrown } from './thrown.js';

const fixtures = join(import.meta.dirname, 'fixtures');
const load = (text: string, env: Record<string, string> = {}) =>
  validateConfig(parseConfigText(text, 'server.conf', { env }));

const errorOf = (text: string) => thrown(ConfigError, () => load(text));

describe('config file validation', () => {
  it('maps every supported key of the fixture to settings', () => {
    const { settings, warnings } = loadConfigFile(join(fixtures, 'main.conf'), {});
    expect(warnings).toEqual([]);
    expect(settings).toEqual({
      host: '127.0.0.1',
      port: 4333,
      serverName: 'from-variable',
      httpHost: '127.0.0.1',
      httpPort: 8333,
      maxPayload: 2 * 1024 * 1024,
      maxPending: 64 * 1024 * 1024,
      maxControlLine: 8000,
      maxConnections: 100,
      maxSubscriptions: 75,
      pingInterval: 30_000,
      pingMax: 3,
      writeDeadline: 2500,
      lameDuckDuration: 90_000,
      authorization: { user: 'alice', pass: 's3cret' },
      authTimeout: 1500,
    });
  });

  it.each([
    ['port: 4333\nhost: 10.0.0.1', { port: 4333, host: '10.0.0.1' }],
    ['net: 10.0.0.1', { host: '10.0.0.1' }],
    ['listen: ":4333"', { port: 4333 }],
    ['listen: 4333', { port: 4333 }],
    ['http_port: 8333', { httpPort: 8333 }],
    ['monitor_port: 8333', { httpPort: 8333 }],
    ['http: 8333', { httpPort: 8333 }],
    ['ping_interval: 30', { pingInterval: 30_000 }],
    ['write_deadline: "10s"', { writeDeadline: 10_000 }],
    ['max_payload: "1MB"', { maxPayload: 1024 * 1024 }],
    ['max_conn: 5, max_subs: 6', { maxConnections: 5, maxSubscriptions: 6 }],
    ['authorization { token: "t0k" }', { authorization: { token: 't0k' } }],
    ['authorization { user: 123, pass: 456 }', { authorization: { user: '123', pass: '456' } }],
    ['debug: true, trace: false, logtime: false', { debug: true, trace: false }],
    [
      'log_file: "/tmp/s.log", pid_file: "/tmp/s.pid"',
      { logFile: '/tmp/s.log', pidFile: '/tmp/s.pid' },
    ],
    ['lame_duck_grace_period: "5s"', { lameDuckGracePeriod: 5000 }],
    ['port: $P', { port: 4999 }],
  ])('%s', (text, settings) => {
    expect(load(text, { P: '4999' }).settings).toEqual(settings);
  });

  it('reads the JetStream block in its nats-server forms', () => {
    const { settings, warnings } = load(
      'jetstream {\n store_dir: "/data"\n max_mem: 1G\n max_file: 10GB\n domain: hub\n sync_interval: "2m"\n}',
    );
    expect(settings.jetstream).toEqual({
      enabled: true,
      storeDir: '/data',
      maxMemory: 1e9,
      maxFile: 10 * 1024 ** 3,
      domain: 'hub',
      syncInterval: 120_000,
    });
    expect(warnings).toEqual([]);
    expect(load('jetstream { sync_interval: always }').settings.jetstream).toEqual({
      enabled: true,
      syncInterval: 'always',
    });
    expect(load('jetstream: enabled').settings.jetstream).toEqual({ enabled: true });
    expect(
      load('jetstream { object_upload_timeout: "5s", max_pending_object_uploads: 8 }').settings
        .jetstream,
    ).toEqual({ enabled: true, objectUploadTimeout: 5_000, maxPendingObjectUploads: 8 });
    // TestJetStreamAtomicBatchPublishConfigOpts, jetstream_batching_test.go:719-753 at v2.12.15
    const batchLimits =
      'jetstream { limits { batch { max_inflight_per_stream: 10, max_inflight_total: 20, max_msgs: 100, timeout: 5s } } }';
    expect(load(batchLimits).settings.jetstream).toEqual({
      enabled: true,
      atomicBatch: { maxInflightPerStream: 10, maxInflightTotal: 20, maxMsgs: 100, timeout: 5_000 },
    });
    expect(load('jetstream: false')).toEqual({
      settings: { jetstream: { enabled: false } },
      warnings: [],
    });
  });

  // One case a refused key, in the form a nats-server config would use it.
  const refusedBlocks: [key: string, text: string][] = [
    ['trusted', 'trusted: "OPERATORKEY"'],
    ['trusted_keys', 'trusted_keys: ["OPERATORKEY"]'],
    ['mqtt', 'mqtt { port: 1883 }'],
    ['max_sub_tokens', 'max_sub_tokens: 16'],
    ['ocsp', 'ocsp { mode: always }'],
  ];

  it('reads operator mode: operator JWTs, a MEMORY, URL, full or cache resolver, resolver_preload', () => {
    const jwt = 'eyJ0eXAiOiJKV1QifQ.e30.sig';
    expect(
      load(`operator: ${jwt}\nresolver: MEMORY\nresolver_preload { AKEY: "eyJ.a.b" }`).settings,
    ).toEqual({
      operator: { jwts: [jwt], resolver: { type: 'memory', preload: { AKEY: 'eyJ.a.b' } } },
    });
    expect(
      load(
        `operator: [${jwt}]\nresolver { type: full, dir: "/tmp/jwt", allow_delete: true, interval: "2m" }`,
      ).settings,
    ).toEqual({
      operator: { jwts: [jwt], resolver: { type: 'full', dir: '/tmp/jwt', allowDelete: true } },
    });
    expect(errorOf('resolver: MEMORY').message).toBe(
      'server.conf:1: resolver: resolver needs an operator',
    );
    expect(errorOf(`operator: ${jwt}`).message).toBe(
      'server.conf:1: operator: operator needs a resolver (MEMORY, URL, full or cache)',
    );
    expect(
      load(`operator: ${jwt}\nresolver: URL(http://localhost:9090/jwt/v1/accounts/)`).settings,
    ).toEqual({
      operator: {
        jwts: [jwt],
        resolver: { type: 'url', url: 'http://localhost:9090/jwt/v1/accounts/' },
      },
    });
    expect(
      load(`operator: ${jwt}\nresolver { type: cache, dir: "/tmp/jwt", ttl: "1h", limit: 100 }`)
        .settings,
    ).toEqual({
      operator: {
        jwts: [jwt],
        resolver: { type: 'cache', dir: '/tmp/jwt', ttl: 3_600_000, limit: 100 },
      },
    });
    expect(
      errorOf(`operator: ${jwt}\nresolver { type: cache, dir: "/tmp/jwt", interval: "2m" }`)
        .message,
    ).toBe('server.conf:2: resolver: CACHE does not accept sync');
    expect(errorOf(`operator: ${jwt}\nresolver: LDAP`).message).toBe(
      'server.conf:2: resolver: error parsing account resolver, should be MEM or  URL("url") or a map containing dir and type state=[FULL|CACHE])',
    );
    expect(errorOf('operator: "/no/such/op.jwt"\nresolver: MEMORY').message).toMatch(
      /^server\.conf:1: operator: cannot read operator JWT file/,
    );
  });

  it('reads accounts with users, exports, imports and JetStream limits', () => {
    const { settings } = load(
      [
        'accounts {',
        '  A: {',
        '    users: [{user: a, password: pw}]',
        '    exports: [{stream: "orders.>"}, {service: "svc.>", accounts: [B], response_type: stream, threshold: "5s"}]',
        '    jetstream: {max_memory: 1MB, max_file: 2GB, max_streams: 3, max_consumers: 4}',
        '  }',
        '  B: {',
        '    users: [{user: b, password: pw}]',
        '    imports: [{stream: {account: A, subject: "orders.>"}, prefix: a}, {service: {account: A, subject: "svc.x"}, to: x}]',
        '    jetstream: enabled',
        '  }',
        '}',
      ].join('\n'),
    );
    expect(settings.accounts).toEqual({
      A: {
        users: [{ user: 'a', pass: 'pw' }],
        exports: [
          { stream: 'orders.>' },
          { service: 'svc.>', accounts: ['B'], responseType: 'stream', responseThreshold: 5000 },
        ],
        jetstream: {
          maxMemory: 1024 * 1024,
          maxFile: 2 * 1024 ** 3,
          maxStreams: 3,
          maxConsumers: 4,
        },
      },
      B: {
        users: [{ user: 'b', pass: 'pw' }],
        imports: [
          { stream: { account: 'A', subject: 'orders.>' }, prefix: 'a' },
          { service: { account: 'A', subject: 'svc.x' }, to: 'x' },
        ],
        jetstream: true,
      },
    });
    expect(load('accounts: [A, B]').settings.accounts).toEqual({ A: {}, B: {} });
    expect(
      load('accounts { A: { limits: { max_conn: 2, max_subscriptions: 3 } } }').settings.accounts,
    ).toEqual({ A: { limits: { maxConnections: 2, maxSubscriptions: 3 } } });
    expect(load('system_account: SYS\naccounts: [SYS]').settings.systemAccount).toBe('SYS');
  });

  it('reads service latency, account_token_position and import share', () => {
    const text = `accounts {
      A: { exports: [
        { service: "s.*", latency: { sampling: "50%", subject: lat }, account_token_position: 2 }
        { service: t, latency: lat2 }
        { stream: "u.*", account_token_position: 2 }
      ] }
      B: { imports: [ { service: { account: A, subject: s.B }, share: true } ] }
    }`;
    expect(load(text).settings.accounts).toEqual({
      A: {
        exports: [
          { service: 's.*', latency: { sampling: 50, subject: 'lat' }, accountTokenPosition: 2 },
          { service: 't', latency: { subject: 'lat2' } },
          { stream: 'u.*', accountTokenPosition: 2 },
        ],
      },
      B: { imports: [{ service: { account: 'A', subject: 's.B' }, share: true }] },
    });
    expect(
      load(
        'accounts { A: { exports: [{ service: s, latency: { sampling: headers, subject: l } }] } }',
      ).settings.accounts,
    ).toEqual({
      A: { exports: [{ service: 's', latency: { sampling: 'headers', subject: 'l' } }] },
    });
  });

  it('reads mappings at the top and in accounts: a subject, or weighted destinations', () => {
    const block =
      '{ a: b, "c.*": [ { destination: "d.$1", weight: 50% }, { dest: e, weight: 20 } ] }';
    const expected = {
      a: 'b',
      'c.*': [
        { destination: 'd.$1', weight: 50 },
        { destination: 'e', weight: 20 },
      ],
    };
    expect(load(`mappings ${block}`).settings.mappings).toEqual(expected);
    expect(load(`maps ${block}`).settings.mappings).toEqual(expected);
    expect(load(`accounts { A: { nkey: AKEY, mappings ${block} } }`).settings.accounts).toEqual({
      A: { nkey: 'AKEY', mappings: expected },
    });
    expect(
      errorOf('mappings { a: [ { destination: b, cluster: c, weight: 1 } ] }').message,
    ).toMatch(
      /^server\.conf:1: mappings\.a\.0: mapping destination key "cluster" not supported yet/,
    );
  });

  it.each([
    ['an account key', 'accounts { A: { max_leafnodes: 1 } }', 'account key "max_leafnodes"'],
    [
      'an account limit',
      'accounts { A: { limits: { max_payload: 1 } } }',
      'account limits key "max_payload"',
    ],
    [
      'an account JetStream key',
      'accounts { A: { jetstream: { max_bytes_required: true } } }',
      'account jetstream key "max_bytes_required"',
    ],
    [
      'a latency key',
      'accounts { A: { exports: [{service: x, latency: { subject: lat, results: 1 }}] } }',
      'latency key "results"',
    ],
  ])('refuses %s it does not implement, naming it', (_what, text, named) => {
    const error = errorOf(`port: 4222\n${text}\n`);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(`${named} not supported yet`);
    expect(error.message).toContain('server.conf:2');
  });

  it('maps leafnodes (and its leaf alias) to leafNodes', () => {
    const text = `leafnodes {
      listen: "127.0.0.1:7422"
      authorization { user: leaf, password: s3cret, account: A, timeout: 1.5 }
      reconnect: "250ms"
      remotes = [
        { url: "nats-leaf://hub:7422", account: A, credentials: "/x/leaf.creds" }
        { urls: ["nats-leaf://a:7422", "nats-leaf://b:7422"], no_randomize: true }
      ]
    }`;
    const expected = {
      host: '127.0.0.1',
      port: 7422,
      authorization: { user: 'leaf', password: 's3cret', account: 'A', timeout: 1500 },
      reconnectInterval: 250,
      remotes: [
        { urls: ['nats-leaf://hub:7422'], account: 'A', credentials: '/x/leaf.creds' },
        { urls: ['nats-leaf://a:7422', 'nats-leaf://b:7422'], noRandomize: true },
      ],
    };
    expect(load(text).settings.leafNodes).toEqual(expected);
    expect(load(text.replace('leafnodes', 'leaf')).settings.leafNodes).toEqual(expected);
    expect(load(text).warnings).toEqual([]);
  });

  it("maps a leafnodes user's permissions (ours: nats-server's leaf users take none)", () => {
    const { settings } = load(`leafnodes {
      port: 7422
      authorization { users [ { user: a, password: b, permissions { publish: "up.>", subscribe { allow: ["down.>"] } } } ] }
    }`);
    expect(settings.leafNodes?.authorization?.users).toEqual([
      {
        user: 'a',
        password: 'b',
        permissions: { publish: { allow: ['up.>'] }, subscribe: { allow: ['down.>'] } },
      },
    ]);
  });

  it('maps the leafnodes tls blocks to file names, read at the start', () => {
    const { settings } = load(`leafnodes {
      port: 7422
      tls { cert_file: s.pem, key_file: s.key, ca_file: ca.pem, verify: true, timeout: 3 }
      remotes [ { url: "tls://hub:7422", tls { ca_file: hub-ca.pem, insecure: true }, deny_imports: "secret.>", deny_exports: ["a", "b.*"] } ]
    }`);
    expect(settings.leafNodes).toEqual({
      port: 7422,
      tls: { cert: 's.pem', key: 's.key', ca: 'ca.pem', verify: true, timeout: 3000 },
      remotes: [
        {
          urls: ['tls://hub:7422'],
          tls: { ca: 'hub-ca.pem', insecure: true },
          denyImports: ['secret.>'],
          denyExports: ['a', 'b.*'],
        },
      ],
    });
  });

  it.each([
    ['leafnodes { port: 7422, tls { pinned_certs: [a] } }', 'leafnodes tls key "pinned_certs"'],
    [
      'leafnodes { remotes [ { url: "nats-leaf://h:1", ws_compression: true } ] }',
      'leafnodes remote key "ws_compression"',
    ],
    [
      'leafnodes { authorization { users [ { user: a, password: b, proxy_required: true } ] } }',
      'leafnodes user key "proxy_required"',
    ],
  ])('refuses the leafnodes keys it does not implement: %s', (text, named) => {
    const error = errorOf(`port: 4222\n${text}\n`);
    expect(error.message).toContain(`${named} not supported yet`);
  });

  it('has a refusal case for every refused key', () => {
    expect(refusedBlocks.map(([key]) => key).sort()).toEqual(Object.keys(refusedKeys).sort());
  });

  it.each(refusedBlocks)('refuses to start with %s, naming file, line and key', (key, text) => {
    const error = errorOf(`port: 4222\n${text}\n`);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(
      `server.conf:2: ${key}: ${refusedKeys[key]}; refusing to start rather than ignore it`,
    );
  });

  it.each(Object.entries(warnedKeys))('warns about %s and runs without it', (key, reason) => {
    expect(load(`port: 4222\n${key}: 1\n`)).toEqual({
      settings: { port: 4222 },
      warnings: [`server.conf:2: ${key}: ${reason}`],
    });
  });

  it.each([
    [
      'password',
      `authorization {\n  user: a\n  password: "${bcryptHash}"\n}`,
      { user: 'a', pass: bcryptHash },
    ],
    [
      'password',
      `authorization {\n  user: a\n  password: ${bcryptHash}\n}`,
      { user: 'a', pass: bcryptHash },
    ],
    ['token', `authorization {\n  token: "${bcryptHash}"\n}`, { token: bcryptHash }],
  ])(
    'passes a bcrypt-hashed authorization.%s on as written, to be checked with bcrypt',
    (_key, text, authorization) => {
      expect(load(text)).toEqual({ settings: { authorization }, warnings: [] });
    },
  );

  it('maps the tls block to settings, timeout in seconds or as a duration', () => {
    const tls = (block: string) => load(`tls { ${block} }`);
    expect(tls('cert_file: "c.pem", key_file: "k.pem", ca_file: ca.pem, verify: true')).toEqual({
      settings: { tls: { enabled: true, cert: 'c.pem', key: 'k.pem', ca: 'ca.pem', verify: true } },
      warnings: [],
    });
    expect(tls('cert_file: c.pem, key_file: k.pem, timeout: 0.5').settings.tls?.timeout).toBe(500);
    expect(tls('cert_file: c.pem, key_file: k.pem, timeout: "3s"').settings.tls?.timeout).toBe(
      3000,
    );
  });

  it('maps verify_and_map, pinned_certs, cipher_suites, min_version and handshake_first', () => {
    const tls = (block: string) => load(`tls { cert_file: c.pem, key_file: k.pem, ${block} }`);
    expect(
      tls(
        'verify_and_map: true, pinned_certs: ["ab12"], cipher_suites: [TLS_AES_128_GCM_SHA256], min_version: "1.3", handshake_first: true',
      ).settings.tls,
    ).toEqual({
      enabled: true,
      cert: 'c.pem',
      key: 'k.pem',
      verifyAndMap: true,
      pinnedCerts: ['ab12'],
      cipherSuites: ['TLS_AES_128_GCM_SHA256'],
      minVersion: '1.3',
      handshakeFirst: true,
    });
    const first = (value: string) => {
      const { handshakeFirst, handshakeFirstFallback } = tls(`handshake_first: ${value}`).settings
        .tls!;
      return [handshakeFirst, handshakeFirstFallback];
    };
    expect(first('"auto"')).toEqual([true, 50]);
    expect(first('"300ms"')).toEqual([true, 300]);
    expect(first('off')).toEqual([false, undefined]);
    expect(tls('first: on').settings.tls?.handshakeFirst).toBe(true);
    expect(errorOf('tls { handshake_first: "later" }').message).toMatch(
      /^server\.conf:1: tls\.handshake_first: expected true, false, "auto"/,
    );
    expect(errorOf('tls { min_version: "1.1" }').message).toMatch(/tls\.min_version: expected/);
  });

  it('reads message tracing: account msg_trace / trace_dest and allow_trace (nats-server 2.11)', () => {
    const accounts = (text: string) => load(`accounts { ${text} }`).settings.accounts;
    expect(accounts('A: { msg_trace: "acc.trace" }')).toEqual({
      A: { msgTrace: { dest: 'acc.trace' } },
    });
    expect(accounts('A: { trace_dest: { dest: "t", sampling: "50%" } }')).toEqual({
      A: { msgTrace: { dest: 't', sampling: 50 } },
    });
    expect(accounts('A: { msg_trace: { sampling: 20 } }')).toEqual({ A: {} });
    expect(
      accounts(
        'A: { exports: [ { service: ">", allow_trace: true } ] }, B: { imports: [ { stream: { account: A, subject: x }, allow_trace: true } ] }',
      ),
    ).toEqual({
      A: { exports: [{ service: '>', allowTrace: true }] },
      B: { imports: [{ stream: { account: 'A', subject: 'x' }, allowTrace: true }] },
    });
    expect(
      errorOf('accounts { A: { exports: [ { stream: x, allow_trace: true } ] } }').message,
    ).toContain('Detected allow_trace directive on non-service');
    expect(
      errorOf(
        'accounts { A: { imports: [ { service: { account: B, subject: x }, allow_trace: true } ] } }',
      ).message,
    ).toContain('Detected allow_trace directive on a non-stream');
  });

  it('maps curve_preferences; takes insecure, which changes nothing on a listener', () => {
    const block = 'cert_file: c.pem, key_file: k.pem, curve_preferences: [CurveP384, X25519]';
    const expected = {
      enabled: true,
      cert: 'c.pem',
      key: 'k.pem',
      curvePreferences: ['CurveP384', 'X25519'],
    };
    expect(load(`tls { ${block}, insecure: true }`)).toEqual({
      settings: { tls: expected },
      warnings: [],
    });
    expect(load(`websocket { port: 8080, tls { ${block}, insecure: true } }`).settings).toEqual({
      websocket: { port: 8080, tls: expected },
    });
    expect(errorOf('tls { insecure: "yes" }').message).toMatch(/^server\.conf:1: tls\.insecure: /);
  });

  it('maps https_port and https to an HTTPS monitoring port', () => {
    expect(load('https_port: 8443').settings).toEqual({ httpsPort: 8443 });
    expect(load('https: "127.0.0.1:8443"').settings).toEqual({
      httpHost: '127.0.0.1',
      httpsPort: 8443,
    });
  });

  it('refuses tls settings it cannot honour rather than run with weaker TLS', () => {
    expect(
      errorOf('tls {\n  cert_file: c.pem\n  cert_store: "WindowsCurrentUser"\n}').message,
    ).toMatch(
      /^server\.conf:3: tls\.cert_store: not supported yet \(only cert_file, key_file, ca_file, verify, timeout, verify_and_map, pinned_certs, cipher_suites, curve_preferences, insecure, min_version and handshake_first are\); refusing to start/,
    );
    // nats-server 2.9.21+: revoked client certificates would get in.
    expect(errorOf('tls {\n  cert_file: c.pem\n  ocsp_peer: true\n}').message).toMatch(
      /^server\.conf:3: tls\.ocsp_peer: not supported yet/,
    );
    expect(errorOf('tls { verify: "yes" }').message).toMatch(/^server\.conf:1: tls\.verify: /);
  });

  it.each([
    [
      'authorization {\n  users: [\n    {user: a, password: b, account: A}\n  ]\n}',
      'server.conf:3: authorization.users.0: user key "account" not supported yet',
    ],
    [
      'authorization {\n  users: [{user: a, permissions: { publish: { allow: x, except: y } }}]\n}',
      'server.conf:2: authorization.users.0.permissions.publish: subject permission key "except" not supported yet',
    ],
    [
      'authorization {\n  user: a\n  permissions: { responses: true }\n}',
      'server.conf:3: authorization.permissions: permissions key "responses" not supported yet',
    ],
    [
      'authorization {\n  nkeys: [{nkey: UABC}]\n}',
      'server.conf:2: authorization.nkeys: not supported yet',
    ],
  ])('refuses authorization it cannot enforce rather than run open: %j', (text, message) => {
    const refusal = errorOf(text).message;
    expect(refusal.slice(0, message.length)).toBe(message);
    expect(refusal).toContain('; refusing to start');
  });

  it('maps the websocket block, its tls block too', () => {
    const text = `websocket {
      listen: "127.0.0.1:8080"
      tls { cert_file: c.pem, key_file: k.pem, timeout: "1s" }
      compression: true
      same_origin: true
      allowed_origins: "https://app.example"
      handshake_timeout: "3s"
    }`;
    expect(load(text).settings).toEqual({
      websocket: {
        host: '127.0.0.1',
        port: 8080,
        tls: { enabled: true, cert: 'c.pem', key: 'k.pem', timeout: 1000 },
        compression: true,
        sameOrigin: true,
        allowedOrigins: ['https://app.example'],
        handshakeTimeout: 3000,
      },
    });
  });

  it.each([
    ['no_auth_user: guest', 'websocket.no_auth_user'],
    ['jwt_cookie: jwt', 'websocket.jwt_cookie'],
    ['authorization { token: t }', 'websocket.authorization'],
    ['tls { cert_file: c, pinned_certs: [x] }', 'websocket.tls.pinned_certs'],
  ])('refuses websocket { %s } rather than run a weaker listener', (line, key) => {
    const refusal = errorOf(`websocket {\n  port: 8080\n  ${line}\n}`).message;
    expect(refusal).toMatch(
      new RegExp(`^server\\.conf:3: ${key.replaceAll('.', '\\.')}: not supported yet`),
    );
  });

  it('maps allow_non_tls', () => {
    expect(load('allow_non_tls: true').settings).toEqual({ allowNonTls: true });
    expect(errorOf('allow_non_tls: "yes"').message).toMatch(/^server\.conf:1: allow_non_tls: /);
  });

  it('maps users, nkeys, every permissions form and no_auth_user to settings', () => {
    const nkey = 'UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4';
    const text = `
      no_auth_user: guest
      authorization {
        timeout: 3
        default_permissions { publish: "public.>", subscribe: ["public.>", "_INBOX.>"] }
        users: [
          { user: guest, password: "" }
          { username: admin, pass: "${bcryptHash}", permissions: {
              pub: { allow: ["a.>"], deny: "a.secret" }
              sub: { deny: ["a.secret", "jobs workers"] }
              allow_responses: { max: 3, expires: "1m" }
          } }
          { nkey: ${nkey}, permission: { allow_responses: true } }
        ]
      }`;
    expect(load(text)).toEqual({
      settings: {
        noAuthUser: 'guest',
        authTimeout: 3000,
        authorization: {
          defaultPermissions: {
            publish: { allow: ['public.>'] },
            subscribe: { allow: ['public.>', '_INBOX.>'] },
          },
          users: [
            { user: 'guest', pass: '' },
            {
              user: 'admin',
              pass: bcryptHash,
              permissions: {
                publish: { allow: ['a.>'], deny: ['a.secret'] },
                subscribe: { deny: ['a.secret', 'jobs workers'] },
                allowResponses: { max: 3, expires: 60_000 },
              },
            },
            { nkey, permissions: { allowResponses: true } },
          ],
        },
      },
      warnings: [],
    });
  });

  it('accepts keys that exist only to be variables', () => {
    expect(load('PORT: 4444\nport: $PORT').settings).toEqual({ port: 4444 });
  });

  it.each([
    ['\n\nnot_a_key: 1', 'server.conf:3: not_a_key: unknown field'],
    ['port: "abc"', 'server.conf:1: port: '],
    ['port: 70000', 'server.conf:1: port: '],
    ['max_payload: -1', 'server.conf:1: max_payload: '],
    [
      'max_payload: "lots"',
      'server.conf:1: max_payload: expected a size like 1048576, 1MB or 64K, got "lots"',
    ],
    [
      'ping_interval: "soon"',
      'server.conf:1: ping_interval: expected a duration like "2m", "10s" or "500ms" (or a number of seconds), got "soon"',
    ],
    ['authorization {\n  user: a\n  timeout: "x"\n}', 'server.conf:3: authorization.timeout: '],
    [
      'listen: "nohost"',
      'server.conf:1: listen: expected "host:port" or a port number, got "nohost"',
    ],
    ['debug: 3', 'server.conf:1: debug: '],
  ])('rejects %j naming file, line and key', (text, message) => {
    const error = errorOf(text);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message.startsWith(message)).toBe(true);
  });

  it('names the included file for an error inside it', () => {
    expect(() => loadConfigFile(join(fixtures, 'bad-include.conf'), {})).toThrow(
      /bad-value\.conf:3: max_connections: /,
    );
  });
});
