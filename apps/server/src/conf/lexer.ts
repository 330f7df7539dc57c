import { ConfigError } from './errors.js';
import { parseSize } from './units.js';

/** A scalar as written in the file, before variables and includes are resolved. */
export type ScalarToken =
  | { kind: 'string'; value: string; line: number }
  | { kind: 'number'; value: number; line: number }
  | { kind: 'boolean'; value: boolean; line: number }
  | { kind: 'date'; value: Date; line: number }
  | { kind: 'variable'; name: string; line: number };

const booleans: Record<string, boolean> = {
  true: true,
  yes: true,
  on: true,
  false: false,
  no: false,
  off: false,
};

const integerPattern = /^-?\d+$/;
const floatPattern = /^-?\d+\.\d+$/;
const zuluDatePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/**
 * Character-level scanner for the NATS configuration format. The format is context sensitive
 * (`:` separates a key from its value but is part of a bare value like `127.0.0.1:4222`), so the
 * parser tells the lexer whether it expects a key or a value.
 */
export class Lexer {
  private pos = 0;
  line = 1;

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {}

  error(detail: string, line = this.line): ConfigError {
    return new ConfigError('CONFIG_SYNTAX', detail, { file: this.file, line });
  }

  peek(): string {
    return this.text[this.pos] ?? '';
  }

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  advance(): string {
    const ch = this.text[this.pos++] ?? '';
    if (ch === '\n') this.line++;
    return ch;
  }

  /** Skips blanks and comments; newlines too unless `stopAtNewline`. */
  skipTrivia(stopAtNewline = false): void {
    while (!this.atEnd()) {
      const ch = this.peek();
      if (ch === ' ' || ch === '\t' || ch === '\r' || (ch === '\n' && !stopAtNewline)) {
        this.advance();
      } else if (ch === '#' || (ch === '/' && this.text[this.pos + 1] === '/')) {
        while (!this.atEnd() && this.peek() !== '\n') this.advance();
      } else {
        return;
      }
    }
  }

  /** Reads a key: quoted, or bare up to whitespace, `:` or `=`. */
  readKey(): { key: string; line: number } {
    const line = this.line;
    const ch = this.peek();
    if (ch === '"' || ch === "'") {
      this.advance();
      const key = this.readUntilQuote(ch, false);
      return { key, line };
    }
    const start = this.pos;
    while (!this.atEnd() && !/[\s:=]/.test(this.peek())) {
      if ('{}[],;'.includes(this.peek())) break;
      this.advance();
    }
    const key = this.text.slice(start, this.pos);
    if (key === '') throw this.error(`expected a key but found '${this.peek() || 'end of file'}'`);
    return { key, line };
  }

  /** Consumes an optional `:` or `=` between a key and its value. */
  skipKeySeparator(): void {
    this.skipTrivia(true);
    if (this.peek() === ':' || this.peek() === '=') {
      this.advance();
    }
    this.skipTrivia(true);
  }

  /** Reads one scalar value: a quoted string, a `( … )` block, or a bare word typed by its shape. */
  readScalar(): ScalarToken {
    const line = this.line;
    const ch = this.peek();
    if (ch === '"') {
      this.advance();
      return { kind: 'string', value: this.readUntilQuote('"', true), line };
    }
    if (ch === "'") {
      this.advance();
      return { kind: 'string', value: this.readUntilQuote("'", false), line };
    }
    if (ch === '(') {
      this.advance();
      return { kind: 'string', value: this.readBlock(), line };
    }
    const word = this.readBareWord();
    if (word === '') throw this.error(`expected a value but found '${ch || 'end of file'}'`);
    return classifyWord(word, line);
  }

  private readBareWord(): string {
    const start = this.pos;
    while (!this.atEnd() && !/[\s,;}\]]/.test(this.peek())) this.advance();
    return this.text.slice(start, this.pos);
  }

  private readUntilQuote(quote: string, escapes: boolean): string {
    const line = this.line;
    let out = '';
    for (;;) {
      if (this.atEnd()) throw this.error(`unterminated string (opened with ${quote})`, line);
      const ch = this.advance();
      if (ch === quote) return out;
      if (escapes && ch === '\\') {
        out += this.readEscape();
      } else {
        out += ch;
      }
    }
  }

  private readEscape(): string {
    const ch = this.advance();
    switch (ch) {
      case 't':
        return '\t';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case '"':
        return '"';
      case '\\':
        return '\\';
      case 'x': {
        const hex = this.advance() + this.advance();
        if (!/^[0-9a-fA-F]{2}$/.test(hex))
          throw this.error(`expected two hex digits after \\x, got '${hex}'`);
        return String.fromCharCode(Number.parseInt(hex, 16));
      }
      default:
        throw this.error(
          `invalid escape '\\${ch}': only \\xXX, \\t, \\n, \\r, \\" and \\\\ are allowed`,
        );
    }
  }

  // A block string runs until a `)` that stands alone on its line.
  private readBlock(): string {
    const line = this.line;
    const end = /\n[ \t]*\)[ \t]*(?=\r?\n|$)/g;
    end.lastIndex = this.pos;
    const match = end.exec(this.text);
    if (!match) throw this.error("unterminated block: expected ')' alone on a line", line);
    const body = this.text.slice(this.pos, match.index);
    while (this.pos < match.index + match[0].length) this.advance();
    return body.replace(/^\r?\n/, '');
  }
}

function classifyWord(word: string, line: number): ScalarToken {
  const lower = word.toLowerCase();
  if (lower in booleans) return { kind: 'boolean', value: booleans[lower]!, line };
  // bcrypt hashes ($2a$…) look like variable references but are passwords.
  if (word.startsWith('$') && word.length > 1 && !word.startsWith('$2a$')) {
    return { kind: 'variable', name: word.slice(1), line };
  }
  if (integerPattern.test(word) || floatPattern.test(word)) {
    return { kind: 'number', value: Number(word), line };
  }
  const size = parseSize(word);
  if (size !== undefined) return { kind: 'number', value: size, line };
  if (zuluDatePattern.test(word)) return { kind: 'date', value: new Date(word), line };
  return { kind: 'string', value: word, line };
}
