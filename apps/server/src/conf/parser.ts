import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, type SourcePosition } from './errors.js';
import { Lexer, type ScalarToken } from './lexer.js';

export type ConfValue = string | number | boolean | Date | ConfValue[] | ConfMap;
export interface ConfMap {
  [key: string]: ConfValue;
}

/** A parsed configuration: the data, where each value was written, and which keys served as variables. */
export interface ParsedConfig {
  readonly data: ConfMap;
  /** Keyed by `pathKey(path)`; the position of the key (or array element) that holds the value. */
  readonly positions: ReadonlyMap<string, SourcePosition>;
  /** Paths (as `pathKey`) of keys whose value was referenced as `$name`. */
  readonly usedAsVariable: ReadonlySet<string>;
}

export interface ParseOptions {
  /** Looked up when `$name` is not defined in an enclosing block; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export function pathKey(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

const maxIncludeDepth = 10;

/** Reads and parses a configuration file in nats-server's format. */
export function parseConfigFile(file: string, options: ParseOptions = {}): ParsedConfig {
  const state = newState(options);
  parseInto(state, resolve(file), [], state.result.data, []);
  return state.result;
}

/** Parses configuration text; `file` names it in errors and anchors relative includes. */
export function parseConfigText(
  text: string,
  file = '<config>',
  options: ParseOptions = {},
): ParsedConfig {
  const state = newState(options);
  new BlockParser(state, new Lexer(text, file), file, [file]).parseFile(state.result.data, []);
  return state.result;
}

interface State {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly result: {
    data: ConfMap;
    positions: Map<string, SourcePosition>;
    usedAsVariable: Set<string>;
  };
}

function newState(options: ParseOptions): State {
  return {
    env: options.env ?? process.env,
    result: { data: {}, positions: new Map(), usedAsVariable: new Set() },
  };
}

function parseInto(
  state: State,
  file: string,
  basePath: readonly PropertyKey[],
  target: ConfMap,
  includeChain: readonly string[],
  includedFrom?: SourcePosition,
): void {
  if (includeChain.includes(file)) {
    throw new ConfigError(
      'CONFIG_INCLUDE',
      `include cycle: ${[...includeChain, file].join(' -> ')}`,
      includedFrom,
    );
  }
  if (includeChain.length >= maxIncludeDepth) {
    throw new ConfigError(
      'CONFIG_INCLUDE',
      `includes nested deeper than ${maxIncludeDepth}`,
      includedFrom,
    );
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code ?? String(cause);
    const code = includedFrom ? 'CONFIG_INCLUDE' : 'CONFIG_READ';
    throw new ConfigError(code, `cannot read config file ${file} (${reason})`, includedFrom);
  }
  new BlockParser(state, new Lexer(text, file), file, [...includeChain, file]).parseFile(
    target,
    basePath,
  );
}

/** One file's recursive-descent parser; maps are parsed with a scope stack for `$variables`. */
class BlockParser {
  // Enclosing maps, innermost last, with their paths: variables resolve against keys seen so far.
  private readonly scopes: { map: ConfMap; path: readonly PropertyKey[] }[] = [];

  constructor(
    private readonly state: State,
    private readonly lexer: Lexer,
    private readonly file: string,
    private readonly includeChain: readonly string[],
  ) {}

  /** Parses the whole file as the body of `target`, the map found at `path`. */
  parseFile(target: ConfMap, path: readonly PropertyKey[]): void {
    this.parseMapBody(target, path, '');
  }

  private parseMapBody(map: ConfMap, path: readonly PropertyKey[], closer: '' | '}'): void {
    this.scopes.push({ map, path });
    const lx = this.lexer;
    for (;;) {
      lx.skipTrivia();
      while (lx.peek() === ',' || lx.peek() === ';') {
        lx.advance();
        lx.skipTrivia();
      }
      if (lx.atEnd()) {
        if (closer) throw lx.error(`missing '${closer}' to close a block`);
        break;
      }
      if (lx.peek() === '}') {
        if (!closer) throw lx.error("unexpected '}'");
        lx.advance();
        break;
      }
      const { key, line } = lx.readKey();
      if (key === 'include' && this.nextIsBareValue()) {
        this.include(map, path, line);
        continue;
      }
      lx.skipKeySeparator();
      const childPath = [...path, key];
      map[key] = this.parseValue(childPath);
      this.state.result.positions.set(pathKey(childPath), { file: this.file, line });
    }
    this.scopes.pop();
  }

  // `include` is a directive only when followed by whitespace and a value, not by a separator.
  private nextIsBareValue(): boolean {
    const lx = this.lexer;
    lx.skipTrivia(true);
    const ch = lx.peek();
    return ch !== ':' && ch !== '=' && ch !== '{' && ch !== '\n' && ch !== '';
  }

  private include(map: ConfMap, path: readonly PropertyKey[], line: number): void {
    const token = this.lexer.readScalar();
    if (token.kind !== 'string') throw this.lexer.error('include expects a file name', line);
    const target = resolve(dirname(this.file), token.value);
    parseInto(this.state, target, path, map, this.includeChain, { file: this.file, line });
  }

  private parseValue(path: readonly PropertyKey[]): ConfValue {
    const lx = this.lexer;
    const ch = lx.peek();
    if (ch === '{') {
      lx.advance();
      const child: ConfMap = {};
      this.parseMapBody(child, path, '}');
      return child;
    }
    if (ch === '[') {
      lx.advance();
      return this.parseArray(path);
    }
    return this.resolveScalar(lx.readScalar());
  }

  private parseArray(path: readonly PropertyKey[]): ConfValue[] {
    const lx = this.lexer;
    const items: ConfValue[] = [];
    const openedAt = lx.line;
    for (;;) {
      lx.skipTrivia();
      while (lx.peek() === ',') {
        lx.advance();
        lx.skipTrivia();
      }
      if (lx.atEnd()) throw lx.error("missing ']' to close an array", openedAt);
      if (lx.peek() === ']') {
        lx.advance();
        return items;
      }
      const itemPath = [...path, items.length];
      this.state.result.positions.set(pathKey(itemPath), { file: this.file, line: lx.line });
      items.push(this.parseValue(itemPath));
    }
  }

  private resolveScalar(token: ScalarToken): ConfValue {
    if (token.kind !== 'variable') return token.value;
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const scope = this.scopes[i]!;
      if (Object.hasOwn(scope.map, token.name)) {
        this.state.result.usedAsVariable.add(pathKey([...scope.path, token.name]));
        return scope.map[token.name]!;
      }
    }
    const fromEnv = this.state.env[token.name];
    if (fromEnv !== undefined) return parseEnvValue(fromEnv, token.name);
    throw new ConfigError(
      'CONFIG_VARIABLE',
      `variable $${token.name} is not defined in an enclosing block or the environment`,
      { file: this.file, line: token.line },
    );
  }
}

// An environment value is typed like a value written in the file (so PORT=4222 is a number).
function parseEnvValue(raw: string, name: string): ConfValue {
  if (raw.trim() === '') return raw;
  const parsed = parseConfigText(`v = ${raw}`, `$${name} (environment)`, { env: {} });
  return parsed.data.v!;
}
