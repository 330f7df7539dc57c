/** Where a value came from, so every complaint about it can point at the file and line. */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
}

export type ConfigErrorCode =
  | 'CONFIG_READ'
  | 'CONFIG_SYNTAX'
  | 'CONFIG_VARIABLE'
  | 'CONFIG_INCLUDE'
  | 'CONFIG_INVALID';

/** A configuration problem; the message reads `file:line: key: what is wrong`. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly code: ConfigErrorCode,
    readonly detail: string,
    readonly position?: SourcePosition,
    readonly key?: string,
  ) {
    super(formatLocation(position, key) + detail);
  }
}

/** `file:line: key: ` for whichever of them are known; the prefix of every complaint about a value. */
export function formatLocation(
  position: SourcePosition | undefined,
  key: string | undefined,
): string {
  const where = position ? `${position.file}:${position.line}: ` : '';
  return key ? `${where}${key}: ` : where;
}
