import type { Settings } from './settings.js';
import { refusingToStart } from './unsupported.js';

export type FlagErrorCode =
  | 'UNKNOWN_FLAG'
  | 'MISSING_VALUE'
  | 'INVALID_VALUE'
  | 'UNEXPECTED_ARGUMENT'
  | 'NOT_SUPPORTED';

export class FlagError extends Error {
  override readonly name = 'FlagError';
  constructor(
    readonly code: FlagErrorCode,
    message: string,
  ) {
    super(message);
  }
}

type Kind = 'string' | 'int' | 'bool';
type Action = 'config' | 'help' | 'version' | 'test';
/** A dotted path into Settings, e.g. `authorization.user`. */
type SettingPath = string;

interface FlagSpec {
  /** Names without dashes; each works with one or two dashes, as with Go's flag package. */
  readonly names: readonly string[];
  readonly kind: Kind;
  readonly section: string;
  readonly help: string;
  readonly valueName?: string;
  /** Settings this flag sets (a bool sets each to its value, other kinds set the one path). */
  readonly sets?: readonly SettingPath[];
  readonly action?: Action;
  /** Accepted for compatibility with nats-server scripts, but only warned about. */
  readonly warning?: string;
  /** Why this value cannot be honoured, if it cannot: the server then refuses to start. */
  readonly refuse?: (value: string | number | boolean) => string | undefined;
}

/** nats-server's command line, as far as this server understands it. */
export const flagTable: readonly FlagSpec[] = [
  {
    names: ['a', 'addr', 'net'],
    kind: 'string',
    section: 'Server',
    valueName: 'host',
    help: 'Bind to host address (default: 0.0.0.0)',
    sets: ['host'],
  },
  {
    names: ['p', 'port'],
    kind: 'int',
    section: 'Server',
    valueName: 'port',
    help: 'Use port for clients (default: 4222, -1 for a random port)',
    sets: ['port'],
  },
  {
    names: ['n', 'name', 'server_name'],
    kind: 'string',
    section: 'Server',
    valueName: 'name',
    help: 'Server name (default: the server id)',
    sets: ['serverName'],
  },
  {
    names: ['P', 'pid'],
    kind: 'string',
    section: 'Server',
    valueName: 'file',
    help: 'File to store the process id in',
    sets: ['pidFile'],
  },
  {
    names: ['m', 'http_port'],
    kind: 'int',
    section: 'Server',
    valueName: 'port',
    help: 'Use port for HTTP monitoring (default: off, -1 for a random port)',
    sets: ['httpPort'],
  },
  {
    names: ['ms', 'https_port'],
    kind: 'int',
    section: 'Server',
    valueName: 'port',
    help: 'Use port for HTTPS monitoring, with the TLS certificate (-1 for a random port)',
    sets: ['httpsPort'],
  },
  {
    names: ['ports_file_dir'],
    kind: 'string',
    section: 'Server',
    valueName: 'dir',
    help: 'Write <dir>/slipstream-server_<pid>.ports listing the ports in use',
    sets: ['portsFileDir'],
  },
  {
    names: ['c', 'config'],
    kind: 'string',
    section: 'Server',
    valueName: 'file',
    help: 'Configuration file (nats-server format)',
    action: 'config',
  },
  {
    names: ['t'],
    kind: 'bool',
    section: 'Server',
    help: 'Test the configuration and exit',
    action: 'test',
  },
  {
    names: ['l', 'log'],
    kind: 'string',
    section: 'Logging',
    valueName: 'file',
    help: 'File to write log output to',
    sets: ['logFile'],
  },
  {
    names: ['T', 'logtime'],
    kind: 'bool',
    section: 'Logging',
    help: 'Timestamp log entries (accepted; timestamps are always on)',
  },
  {
    names: ['D', 'debug'],
    kind: 'bool',
    section: 'Logging',
    help: 'Enable debugging output',
    sets: ['debug'],
  },
  {
    names: ['V', 'trace'],
    kind: 'bool',
    section: 'Logging',
    help: 'Trace the raw protocol',
    sets: ['trace'],
  },
  {
    names: ['VV'],
    kind: 'bool',
    section: 'Logging',
    help: 'Verbose trace (same as -V here)',
    sets: ['trace'],
  },
  {
    names: ['DV'],
    kind: 'bool',
    section: 'Logging',
    help: 'Debug and trace',
    sets: ['debug', 'trace'],
  },
  {
    names: ['DVV'],
    kind: 'bool',
    section: 'Logging',
    help: 'Debug and verbose trace (same as -DV here)',
    sets: ['debug', 'trace'],
  },
  {
    names: ['js', 'jetstream'],
    kind: 'bool',
    section: 'JetStream',
    help: 'Enable JetStream functionality',
    sets: ['jetstream.enabled'],
  },
  {
    names: ['sd', 'store_dir'],
    kind: 'string',
    section: 'JetStream',
    valueName: 'dir',
    help: 'Set the storage directory',
    sets: ['jetstream.storeDir'],
  },
  {
    names: ['user'],
    kind: 'string',
    section: 'Authorization',
    valueName: 'user',
    help: 'User required for connections',
    sets: ['authorization.user'],
  },
  {
    names: ['pass'],
    kind: 'string',
    section: 'Authorization',
    valueName: 'password',
    help: 'Password required for connections',
    sets: ['authorization.pass'],
  },
  {
    names: ['auth'],
    kind: 'string',
    section: 'Authorization',
    valueName: 'token',
    help: 'Authorization token required for connections',
    sets: ['authorization.token'],
  },
  {
    names: ['tls'],
    kind: 'bool',
    section: 'TLS',
    help: 'Enable TLS, do not verify clients',
    sets: ['tls.enabled'],
  },
  {
    names: ['tlscert'],
    kind: 'string',
    section: 'TLS',
    valueName: 'file',
    help: 'Server certificate file',
    sets: ['tls.cert'],
  },
  {
    names: ['tlskey'],
    kind: 'string',
    section: 'TLS',
    valueName: 'file',
    help: 'Private key for server certificate',
    sets: ['tls.key'],
  },
  {
    names: ['tlsverify'],
    kind: 'bool',
    section: 'TLS',
    help: 'Enable TLS, verify client certificates',
    sets: ['tls.verify'],
  },
  {
    names: ['tlscacert'],
    kind: 'string',
    section: 'TLS',
    valueName: 'file',
    help: 'Client certificate CA for verification',
    sets: ['tls.ca'],
  },
  {
    names: ['routes'],
    kind: 'string',
    section: 'Cluster',
    valueName: 'rurl-1, rurl-2',
    help: 'Routes to solicit and connect',
    sets: ['cluster.routes'],
  },
  {
    names: ['cluster', 'cluster_listen'],
    kind: 'string',
    section: 'Cluster',
    valueName: 'cluster-url',
    help: 'Cluster URL for solicited routes',
    sets: ['cluster.listen'],
  },
  {
    names: ['cluster_name'],
    kind: 'string',
    section: 'Cluster',
    valueName: 'name',
    help: 'Cluster name (default: a generated one)',
    sets: ['cluster.name'],
  },
  {
    names: ['cluster_advertise'],
    kind: 'string',
    section: 'Cluster',
    valueName: 'url',
    help: 'Cluster URL to advertise to other servers (ignored: not supported yet)',
    warning:
      'cluster_advertise is not supported yet: other members are told the route port they reached',
  },
  {
    names: ['no_advertise'],
    kind: 'bool',
    section: 'Cluster',
    help: 'Do not advertise known cluster information to clients',
    sets: ['cluster.noAdvertise'],
  },
  {
    names: ['connect_retries'],
    kind: 'int',
    section: 'Cluster',
    valueName: 'number',
    help: 'For implicit routes, number of connect retries',
    sets: ['cluster.connectRetries'],
  },
  {
    names: ['h', 'help'],
    kind: 'bool',
    section: 'Common',
    help: 'Show this message',
    action: 'help',
  },
  {
    names: ['v', 'version'],
    kind: 'bool',
    section: 'Common',
    help: 'Show version',
    action: 'version',
  },
];

const byName = new Map(
  flagTable.flatMap((spec) => spec.names.map((name) => [name, spec] as const)),
);

export interface CommandLine {
  readonly action: 'run' | Exclude<Action, 'config'>;
  readonly configFile?: string;
  /** Only what was given on the command line; it overrides the config file. */
  readonly settings: Settings;
  readonly warnings: readonly string[];
}

/** Parses nats-server style arguments: `-p 4222`, `--port 4222`, `-port=4222`, `-DV`. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const settings: Settings = {};
  const warnings = new Set<string>();
  let action: CommandLine['action'] = 'run';
  let configFile: string | undefined;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      if (i + 1 < argv.length)
        throw new FlagError('UNEXPECTED_ARGUMENT', `unexpected argument "${argv[i + 1]}"`);
      break;
    }
    const match = /^--?([^=-][^=]*)(?:=(.*))?$/s.exec(arg);
    if (!match) throw new FlagError('UNEXPECTED_ARGUMENT', `unexpected argument "${arg}"`);
    const [, name, inline] = match as unknown as [string, string, string | undefined];
    const spec = byName.get(name);
    if (!spec) throw new FlagError('UNKNOWN_FLAG', `unknown flag: ${arg.replace(/=.*$/s, '')}`);

    let raw = inline;
    if (raw === undefined && spec.kind !== 'bool') {
      if (i + 1 >= argv.length)
        throw new FlagError('MISSING_VALUE', `flag needs an argument: -${name}`);
      raw = argv[++i]!;
    }
    const value = convert(spec, name, raw);
    const refusal = spec.refuse?.(value);
    if (refusal) throw new FlagError('NOT_SUPPORTED', `-${name}: ${refusal}; ${refusingToStart}`);

    if (spec.warning && value !== false) warnings.add(spec.warning);
    if (spec.action === 'config') configFile = value as string;
    else if (spec.action && value === true) action = action === 'run' ? spec.action : action;
    for (const path of spec.sets ?? []) setPath(settings, path, value);
  }
  return { action, configFile, settings, warnings: [...warnings] };
}

function convert(spec: FlagSpec, name: string, raw: string | undefined): string | number | boolean {
  switch (spec.kind) {
    case 'bool': {
      if (raw === undefined) return true;
      const word = raw.toLowerCase();
      if (['true', '1', 't'].includes(word)) return true;
      if (['false', '0', 'f'].includes(word)) return false;
      throw new FlagError('INVALID_VALUE', `invalid boolean value "${raw}" for -${name}`);
    }
    case 'int': {
      if (!/^-?\d+$/.test(raw!))
        throw new FlagError(
          'INVALID_VALUE',
          `invalid value "${raw}" for -${name}: expected an integer`,
        );
      return Number(raw);
    }
    case 'string':
      return raw!;
  }
}

function setPath(target: Settings, path: SettingPath, value: unknown): void {
  const keys = path.split('.');
  let node = target as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    node = (node[key] ??= {}) as Record<string, unknown>;
  }
  node[keys.at(-1)!] = value;
}

/** The -h text, built from the flag table so it cannot drift from what is parsed. */
export function usage(bin: string): string {
  const lines = [`Usage: ${bin} [options]`];
  let section = '';
  for (const spec of flagTable) {
    if (spec.section !== section) {
      section = spec.section;
      lines.push('', `${section} Options:`);
    }
    const names = spec.names
      .map((n) => (n.length <= 2 || /^[A-Z]+$/.test(n) ? `-${n}` : `--${n}`))
      .join(', ');
    const left = spec.valueName ? `${names} <${spec.valueName}>` : names;
    lines.push(`    ${left.padEnd(36)} ${spec.help}`);
  }
  lines.push(
    '',
    'Every long flag also works with a single dash (-user, -config), and -flag=value works too.',
  );
  return lines.join('\n');
}
