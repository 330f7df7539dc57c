/**
 * Reading a JSON object into a flat struct as Go's encoding/json (json.Unmarshal) does in
 * nats-server, so a request it refuses is refused with the same text: the whole input is
 * checked first and the first syntax error is reported as Go words it ("invalid character 'x'
 * looking for beginning of object key string", "unexpected end of JSON input"); then each
 * member goes, in order, to the field whose name matches its key (case-insensitively), and the
 * first value of the wrong JSON type is reported ("json: cannot unmarshal string into Go struct
 * field T.batch of type int"). Unknown keys and nulls are ignored; a repeated key's last value
 * wins.
 */

/** The Go types a field may have, named as Go's error messages name them. */
export type GoFieldType = 'int' | 'int64' | 'time.Duration' | 'bool' | 'string';

export interface GoStruct {
  /** The struct's type name, without its package. */
  readonly name: string;
  /** Each field's JSON name and Go type. */
  readonly fields: Readonly<Record<string, GoFieldType>>;
}

export type GoDecoded =
  | { ok: true; fields: Record<string, number | boolean | string> }
  | { ok: false; error: string };

/** encoding/json's limit of nested objects and arrays. */
const MAX_DEPTH = 10_000;
const END = -1;
const SPACE = 0x20;

class GoSyntaxError extends Error {}

/** One member of the top-level object: where its key and its value lie in the input. */
interface Member {
  readonly keyStart: number;
  readonly keyEnd: number;
  readonly valueStart: number;
  readonly valueEnd: number;
}

/** Unmarshals `input`, which starts with `{`, into `struct`. */
export function decodeGoStruct(input: Uint8Array, struct: GoStruct): GoDecoded {
  let members: Member[];
  try {
    members = new Scanner(input).members();
  } catch (error) {
    if (error instanceof GoSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
  const text = (start: number, end: number) => Buffer.from(input.subarray(start, end)).toString();
  const fields: Record<string, number | boolean | string> = {};
  let firstError: string | undefined;
  for (const member of members) {
    const key = JSON.parse(text(member.keyStart, member.keyEnd)) as string;
    const name = fieldFor(key, struct);
    if (name === undefined) continue;
    const literal = text(member.valueStart, member.valueEnd);
    const type = struct.fields[name]!;
    const wrong = mismatch(literal, type);
    if (wrong === null) continue;
    if (wrong !== undefined) {
      firstError ??= `json: cannot unmarshal ${wrong} into Go struct field ${struct.name}.${name} of type ${type}`;
      continue;
    }
    fields[name] = JSON.parse(literal);
  }
  return firstError === undefined ? { ok: true, fields } : { ok: false, error: firstError };
}

/**
 * The field a key goes to: its exact name, or one equal to it when case is folded (Go folds
 * the long s and the Kelvin sign to `s` and `k` too).
 */
function fieldFor(key: string, struct: GoStruct): string | undefined {
  if (Object.hasOwn(struct.fields, key)) return key;
  const folded = key.replaceAll('\u017f', 's').toLowerCase();
  return Object.keys(struct.fields).find((name) => name.toLowerCase() === folded);
}

/**
 * What Go calls a value that does not fit `type` (undefined when it fits, null for a null,
 * which leaves the field alone). An integer field takes only an integer literal within int64.
 */
function mismatch(literal: string, type: GoFieldType): string | null | undefined {
  const kind = jsonKind(literal);
  if (kind === 'null') return null;
  switch (type) {
    case 'bool':
      return kind === 'bool' ? undefined : kind;
    case 'string':
      return kind === 'string' ? undefined : kind;
    default:
      if (kind !== 'number') return kind;
      return isInt64(literal) ? undefined : `number ${literal}`;
  }
}

function jsonKind(literal: string): string {
  switch (literal[0]) {
    case '{':
      return 'object';
    case '[':
      return 'array';
    case '"':
      return 'string';
    case 't':
    case 'f':
      return 'bool';
    case 'n':
      return 'null';
    default:
      return 'number';
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Whether Go's strconv.ParseInt(literal, 10, 64) takes it. */
export function isInt64(literal: string): boolean {
  if (!/^[+-]?\d+$/.test(literal)) return false;
  const value = BigInt(literal);
  return value >= INT64_MIN && value <= INT64_MAX;
}

/**
 * Go's syntax check, byte by byte with its error texts, remembering where the top-level
 * object's members lie. Nesting is kept on an explicit stack, so deep input cannot exhaust
 * the call stack. At the end of the input Go steps one more space: a place that takes a space
 * reports "unexpected end of JSON input", any other place its error for that space.
 */
class Scanner {
  #at = 0;
  /** The open containers: true for an object, false for an array. */
  readonly #open: boolean[] = [];
  readonly #members: Member[] = [];
  #keyStart = 0;
  #keyEnd = 0;
  #valueStart = 0;

  constructor(private readonly input: Uint8Array) {}

  members(): Member[] {
    let wantValue = true;
    for (;;) {
      if (wantValue) {
        wantValue = this.#value();
        continue;
      }
      if (this.#open.length === 0) {
        this.#skipSpace(false);
        if (this.#byte() !== END) this.#fail('after top-level value');
        return this.#members;
      }
      this.#skipSpace(true);
      const c = this.#byte();
      const inObject = this.#open[this.#open.length - 1]!;
      if (c === 0x2c /* , */) {
        this.#at++;
        if (inObject) this.#key();
        wantValue = true;
      } else if (c === (inObject ? 0x7d /* } */ : 0x5d) /* ] */) {
        this.#at++;
        this.#close();
      } else {
        this.#fail(inObject ? 'after object key:value pair' : 'after array element');
      }
    }
  }

  /**
   * Reads a scalar whole, or opens a container (reading an object's first key); true when an
   * opened container's first value comes next.
   */
  #value(): boolean {
    this.#skipSpace(true);
    if (this.#open.length === 1) this.#valueStart = this.#at;
    const c = this.#byte();
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) return this.#push(c === 0x7b);
    if (c === 0x22 /* " */) this.#string();
    else if (c === 0x2d /* - */ || isDigit(c)) this.#number();
    else if (c === 0x74 /* t */) this.#literal('true');
    else if (c === 0x66 /* f */) this.#literal('false');
    else if (c === 0x6e /* n */) this.#literal('null');
    else this.#fail('looking for beginning of value');
    this.#ended();
    return false;
  }

  /** Opens a container: an empty one closes at once (false), else its first value is wanted. */
  #push(object: boolean): boolean {
    this.#open.push(object);
    if (this.#open.length > MAX_DEPTH) this.#fail('exceeded max depth');
    this.#at++;
    this.#skipSpace(true);
    if (this.#byte() === (object ? 0x7d : 0x5d)) {
      this.#at++;
      this.#close();
      return false;
    }
    if (object) this.#key();
    return true;
  }

  #close(): void {
    this.#open.pop();
    this.#ended();
  }

  /** A value ended: one directly in the top-level object completes a member. */
  #ended(): void {
    if (this.#open.length !== 1) return;
    this.#members.push({
      keyStart: this.#keyStart,
      keyEnd: this.#keyEnd,
      valueStart: this.#valueStart,
      valueEnd: this.#at,
    });
  }

  /** An object's key and the colon after it. */
  #key(): void {
    this.#skipSpace(true);
    if (this.#byte() !== 0x22) this.#fail('looking for beginning of object key string');
    const start = this.#at;
    this.#string();
    if (this.#open.length === 1) {
      this.#keyStart = start;
      this.#keyEnd = this.#at;
    }
    this.#skipSpace(true);
    if (this.#byte() !== 0x3a /* : */) this.#fail('after object key');
    this.#at++;
  }

  #string(): void {
    this.#at++;
    for (;;) {
      const c = this.#byte();
      if (c === END) this.#unexpectedEnd();
      if (c < 0x20) this.#fail('in string literal');
      this.#at++;
      if (c === 0x22) return;
      if (c !== 0x5c /* \ */) continue;
      const escaped = this.#byte();
      if (escaped === 0x75 /* u */) {
        this.#at++;
        for (let i = 0; i < 4; i++) {
          if (!isHex(this.#byte())) this.#fail('in \\u hexadecimal character escape');
          this.#at++;
        }
      } else if (escaped !== END && 'bfnrt\\/"'.includes(String.fromCharCode(escaped))) {
        this.#at++;
      } else {
        this.#fail('in string escape code');
      }
    }
  }

  #number(): void {
    if (this.#byte() === 0x2d) {
      this.#at++;
      if (!isDigit(this.#byte())) this.#fail('in numeric literal');
    }
    // A leading zero stands alone: what follows it is read as what comes after the number.
    if (this.#byte() === 0x30) this.#at++;
    else this.#digits();
    if (this.#byte() === 0x2e /* . */) {
      this.#at++;
      if (!isDigit(this.#byte())) this.#fail('after decimal point in numeric literal');
      this.#digits();
    }
    const e = this.#byte();
    if (e === 0x65 || e === 0x45 /* e E */) {
      this.#at++;
      const sign = this.#byte();
      if (sign === 0x2b || sign === 0x2d /* + - */) this.#at++;
      if (!isDigit(this.#byte())) this.#fail('in exponent of numeric literal');
      this.#digits();
    }
  }

  #digits(): void {
    while (isDigit(this.#byte())) this.#at++;
  }

  #literal(word: string): void {
    this.#at++;
    for (const expected of word.slice(1)) {
      if (this.#byte() !== expected.charCodeAt(0)) {
        this.#fail(`in literal ${word} (expecting ${quoteChar(expected.charCodeAt(0))})`);
      }
      this.#at++;
    }
  }

  /** Skips Go's JSON whitespace; `inside` a value, the input may not end there. */
  #skipSpace(inside: boolean): void {
    for (;;) {
      const c = this.#byte();
      if (c === SPACE || c === 0x09 || c === 0x0a || c === 0x0d) this.#at++;
      else if (c === END && inside) this.#unexpectedEnd();
      else return;
    }
  }

  #byte(): number {
    return this.#at < this.input.length ? this.input[this.#at]! : END;
  }

  #fail(context: string): never {
    const c = this.#byte();
    throw new GoSyntaxError(`invalid character ${quoteChar(c === END ? SPACE : c)} ${context}`);
  }

  #unexpectedEnd(): never {
    throw new GoSyntaxError('unexpected end of JSON input');
  }
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/**
 * A byte as Go's scanner quotes it: in single quotes, as strconv.Quote writes the character
 * of that code (so a byte of a multi-byte character shows as its Latin-1 letter).
 */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  return `'${goQuoteRune(c)}'`;
}

const NAMED_ESCAPES: Record<number, string> = {
  7: '\\a',
  8: '\\b',
  12: '\\f',
  10: '\\n',
  13: '\\r',
  9: '\\t',
  11: '\\v',
  92: '\\\\',
};

/** strconv.Quote's form of a code point below U+0100. */
function goQuoteRune(c: number): string {
  const named = NAMED_ESCAPES[c];
  if (named) return named;
  const hex = c.toString(16).padStart(2, '0');
  if (c < 0x20 || c === 0x7f) return `\\x${hex}`;
  // Go's IsPrint: the C1 controls, the no-break space and the soft hyphen are not printable.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `\\u00${hex}`;
  return String.fromCharCode(c);
}
