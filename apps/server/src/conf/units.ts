// Size suffixes follow nats-server: k/m/g/t are powers of 1000; with a trailing b (or i/ib) powers of 1024.
const sizePattern = /^(-?\d+)([kmgt])(b|ib|i)?$/i;
const sizeExponent: Record<string, number> = { k: 1, m: 2, g: 3, t: 4 };

/** `1MB` → 1048576, `1K` → 1000; undefined when the text is not a size. */
export function parseSize(text: string): number | undefined {
  const match = sizePattern.exec(text.trim());
  if (!match) return undefined;
  const base = match[3] ? 1024 : 1000;
  return Number(match[1]) * base ** sizeExponent[match[2]!.toLowerCase()]!;
}

const durationUnitMs: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const durationPart = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** A Go duration (`2m`, `1h30m`, `250ms`, `1.5s`) in milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  let rest = text.trim();
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  durationPart.lastIndex = 0;
  while (durationPart.lastIndex < rest.length) {
    const match = durationPart.exec(rest);
    if (!match) return undefined;
    total += Number(match[1]) * durationUnitMs[match[2]!]!;
  }
  return sign * total;
}
