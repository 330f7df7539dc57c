import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ClusterTlsOptions,
  checkOptions,
  collectBuffersWith,
  createConsoleLogger,
  type JetStreamOptions,
  type LeafNodeOptions,
  type Logger,
  NATS_COMPATIBLE_VERSION,
  type NatsServer,
  ServerError,
  type ServerOptions,
  silentLogger,
  startServer,
  type TlsOptions,
} from '@slipstream/server';
import { bufferCollector } from './buffer-collector.js';
import { readClusterTlsFiles, toClusterOptions } from './cluster-settings.js';
import { ConfigError } from './conf/errors.js';
import { FlagError, parseCommandLine, usage } from './flags.js';
import { readLeafNodeFiles } from './leafnode-files.js';
import { writePortsFile } from './ports-file.js';
import { defaultSettings, mergeSettings, type Settings } from './settings.js';
import { readTlsFiles, TlsSetupError } from './tls-files.js';
import { appVersion } from './version.js';

const bin = 'slipstream-server';

/** Runs the server as nats-server would with these arguments; resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const stderr = createConsoleLogger();
  let command: ReturnType<typeof parseCommandLine>;
  try {
    command = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    // A flag refused for what it asks (not for how it is written) needs no usage text.
    const help = error.code === 'NOT_SUPPORTED' ? '' : `${usage(bin)}\n`;
    process.stderr.write(`${bin}: ${error.message}\n${help}`);
    return 1;
  }
  if (command.action === 'help') {
    process.stdout.write(`${usage(bin)}\n`);
    return 0;
  }
  if (command.action === 'version') {
    process.stdout.write(`${versionLine()}\n`);
    return 0;
  }

  let fromFile: Settings = {};
  const warnings = [...command.warnings];
  if (command.configFile) {
    try {
      // Loaded on demand: zod and the parser are only worth their start-up cost with a config file.
      const { loadConfigFile } = await import('./config.js');
      const loaded = loadConfigFile(command.configFile);
      fromFile = loaded.settings;
      warnings.unshift(...loaded.warnings);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      stderr.error(error.message);
      return 1;
    }
  }
  const given = mergeSettings(fromFile, command.settings);
  // Read now, so that -t checks the files too (as nats-server does) and a bad one stops the start.
  let tls: TlsOptions | undefined;
  let websocketTls: TlsOptions | undefined;
  let leafNodes: LeafNodeOptions | undefined;
  let clusterTls: ClusterTlsOptions | undefined;
  try {
    tls = readTlsFiles(given.tls);
    websocketTls = readTlsFiles(given.websocket?.tls);
    leafNodes = readLeafNodeFiles(given.leafNodes);
    clusterTls = readClusterTlsFiles(given.cluster?.tls);
  } catch (error) {
    if (!(error instanceof TlsSetupError)) throw error;
    stderr.error(error.message);
    return 1;
  }
  if (command.action === 'test') {
    // What the library itself would refuse at the start (an nkey that is not one, a permission
    // subject that is not valid), as nats-server's -t refuses it.
    try {
      checkOptions(
        toServerOptions(
          mergeSettings(defaultSettings, given),
          silentLogger,
          tls,
          websocketTls,
          leafNodes,
          clusterTls,
        ),
      );
    } catch (error) {
      if (!(error instanceof ServerError)) throw error;
      stderr.error(error.message);
      return 1;
    }
    for (const warning of warnings) stderr.warn(warning);
    process.stdout.write(
      `${bin}: configuration file ${command.configFile ?? '(none)'} test is successful\n`,
    );
    return 0;
  }

  const settings = mergeSettings(defaultSettings, given);
  const logFile = settings.logFile;
  const log = createConsoleLogger(
    logFile ? { write: (line) => appendFileSync(logFile, line) } : {},
  );
  if (command.configFile) log.info(`  Using configuration file: ${command.configFile}`);
  for (const warning of warnings) log.warn(warning);

  // Trapped before the start: a harness may signal as soon as the client port opens, which is
  // before startServer resolves (monitoring still starting) and would otherwise kill the process.
  const stopOnSignal = trapStopSignals(log);
  collectBuffersWith(bufferCollector());
  let server: NatsServer;
  try {
    server = await startServer(
      toServerOptions(settings, log, tls, websocketTls, leafNodes, clusterTls),
    );
  } catch (error) {
    log.error(`could not start: ${(error as Error).message}`);
    return 1;
  }
  const { pidFile, portsFileDir } = settings;
  if (pidFile) writeFileSync(pidFile, String(process.pid));
  const removePortsFile = portsFileDir ? writePortsFile(portsFileDir, bin, server) : undefined;
  // On 'exit' so that an immediate exit (a second signal) cleans up too.
  process.once('exit', () => {
    removePortsFile?.();
    if (pidFile) rmSync(pidFile, { force: true });
  });
  return stopOnSignal(server);
}

/**
 * nats-server's form, `<bin>: vX.Y.Z`, with the nats-server version whose behaviour we implement:
 * tools that gate features on the server's version read the first vX.Y.Z they see. Our own version
 * follows without a `v`, so that it can never be taken for it.
 */
export function versionLine(): string {
  return `${bin}: v${NATS_COMPATIBLE_VERSION} (slipstream ${appVersion})`;
}

/**
 * Maps settings to the library's options. `-m 0` turns monitoring off as in nats-server; a -1 port
 * ("any free port") the library reads itself. `tls` is what {@link readTlsFiles} made of `settings.tls`.
 */
export function toServerOptions(
  settings: Settings,
  log: Logger,
  tls: TlsOptions | undefined,
  websocketTls?: TlsOptions,
  /** `settings.leafNodes` with its TLS files read ({@link readLeafNodeFiles}). */
  leafNodes?: LeafNodeOptions,
  /** `settings.cluster.tls` with its files read ({@link readClusterTlsFiles}). */
  clusterTls?: ClusterTlsOptions,
): ServerOptions {
  const ws = settings.websocket;
  return {
    host: settings.host,
    port: settings.port,
    serverName: settings.serverName,
    httpHost: settings.httpHost,
    httpPort: settings.httpPort === 0 ? undefined : settings.httpPort,
    httpsPort: settings.httpsPort === 0 ? undefined : settings.httpsPort,
    monitoringAuth: settings.monitoringAuth,
    dashboard: settings.dashboard,
    maxPayload: settings.maxPayload,
    maxPending: settings.maxPending,
    maxControlLine: settings.maxControlLine,
    maxConnections: settings.maxConnections,
    maxSubscriptions: settings.maxSubscriptions,
    pingInterval: settings.pingInterval,
    pingMax: settings.pingMax,
    writeDeadline: settings.writeDeadline,
    authTimeout: settings.authTimeout,
    lameDuckDuration: settings.lameDuckDuration,
    lameDuckGracePeriod: settings.lameDuckGracePeriod,
    authorization: settings.authorization,
    accounts: settings.accounts,
    mappings: settings.mappings,
    systemAccount: settings.systemAccount,
    operator: settings.operator,
    noAuthUser: settings.noAuthUser,
    allowNonTls: settings.allowNonTls,
    // As in nats-server, a websocket block without a port opens no listener.
    websocket: ws?.port ? { ...ws, port: ws.port, tls: websocketTls } : undefined,
    leafNodes,
    cluster: toClusterOptions(settings.cluster, clusterTls),
    tls,
    debug: settings.debug,
    trace: settings.trace,
    jetstream: toJetStreamOptions(settings.jetstream),
    logger: log,
  };
}

/**
 * JetStream as nats-server starts it: on when the flag or block says so, its store in the given
 * directory or, without one, under the system's temp directory (nats-server's default).
 */
function toJetStreamOptions(js: Settings['jetstream']): JetStreamOptions | undefined {
  if (!js?.enabled) return undefined;
  return {
    storeDir: js.storeDir ?? join(tmpdir(), 'nats'),
    maxMemory: js.maxMemory,
    maxFile: js.maxFile,
    domain: js.domain,
    syncInterval: js.syncInterval,
    objectUploadTimeout: js.objectUploadTimeout,
    maxPendingObjectUploads: js.maxPendingObjectUploads,
    atomicBatch: js.atomicBatch,
  };
}

/**
 * Signals map to nats-server's: INT/TERM stop, USR2 lame duck; a second signal exits at once. A
 * signal that arrives before the server is running is acted on once it is. The returned function
 * takes the running server and resolves with the exit code when it has closed.
 */
function trapStopSignals(log: Logger): (server: NatsServer) => Promise<number> {
  let stopping = false;
  let running: NatsServer | undefined;
  let pending: ((server: NatsServer) => Promise<void>) | undefined;
  const act = (server: NatsServer, action: (server: NatsServer) => Promise<void>) =>
    action(server).catch((error: unknown) =>
      log.error(`shutdown failed: ${(error as Error).message}`),
    );
  const onSignal = (name: string, action: (server: NatsServer) => Promise<void>) => () => {
    log.info(`Trapped "${name}" signal`);
    if (stopping) process.exit(1);
    stopping = true;
    if (running) void act(running, action);
    else pending = action;
  };
  process.on(
    'SIGINT',
    onSignal('interrupt', (server) => server.close()),
  );
  process.on(
    'SIGTERM',
    onSignal('terminated', (server) => server.close()),
  );
  process.on(
    'SIGUSR2',
    onSignal('user defined signal 2', (server) => server.lameDuck()),
  );
  return (server) => {
    running = server;
    if (pending) void act(server, pending);
    // However the server ends (signal, lame duck, or its own close), the process ends with it.
    return server.closed.then(() => 0);
  };
}
