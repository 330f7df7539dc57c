/** Whether a bigger number is a better result (throughput) or a worse one (latency, CPU, memory). */
export type Better = 'higher' | 'lower';

export interface Figure {
  readonly name: string;
  readonly unit: string;
  readonly better: Better;
  readonly reference: number;
  /** Undefined when our side could not run. */
  readonly ours: number | undefined;
  /** The ratio ours/reference the issue asks for: a floor when higher is better, a ceiling otherwise. */
  readonly target?: number;
  /** Ours / reference in each round, when the figure was measured in rounds. */
  readonly roundRatios?: readonly number[];
}

/** A markdown table of medians and their ratio ours/reference, readable on a terminal as is. */
export class RatioTable {
  private readonly figures: Figure[] = [];
  private readonly notes: string[] = [];

  constructor(
    readonly title: string,
    readonly referenceName: string,
    readonly oursName: string,
  ) {}

  add(figure: Figure): void {
    this.figures.push(figure);
  }

  note(text: string): void {
    this.notes.push(text);
  }

  render(): string {
    const head = `| figure | ${this.referenceName} | ${this.oursName} | ours / ref | rounds' ratios | target | |`;
    const lines = [`### ${this.title}`, '', head, '|---|---:|---:|---:|---:|---:|---|'];
    for (const f of this.figures) {
      const ratio = ratioOf(f.ours, f.reference);
      const target =
        f.target === undefined ? '' : `${f.better === 'higher' ? '≥' : '≤'} ${f.target}x`;
      const ours = f.ours === undefined ? 'n/a' : formatNumber(f.ours);
      lines.push(
        `| ${f.name} (${f.unit}, ${f.better} is better) | ${formatNumber(f.reference)} | ${ours} | ${formatRatio(ratio)} | ${spread(f.roundRatios)} | ${target} | ${verdict(f, ratio)} |`,
      );
    }
    if (this.notes.length > 0) lines.push('', ...this.notes.map((n) => `- ${n}`));
    return lines.join('\n');
  }
}

/** ours / reference; none without a figure of ours or over a reference of 0. */
export function ratioOf(ours: number | undefined, reference: number): number | undefined {
  return ours === undefined || reference === 0 ? undefined : ours / reference;
}

/** `1.23x`, or n/a without a ratio. */
export function formatRatio(ratio: number | undefined): string {
  return ratio === undefined ? 'n/a' : `${ratio.toFixed(2)}x`;
}

/** Lowest and highest single-round ratio: a wide range says the machine was noisy for this figure. */
function spread(ratios: readonly number[] | undefined): string {
  if (!ratios || ratios.length === 0) return '';
  return `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
}

function verdict(figure: Figure, ratio: number | undefined): string {
  if (ratio === undefined || figure.target === undefined) return '';
  const met = figure.better === 'higher' ? ratio >= figure.target : ratio <= figure.target;
  return met ? 'met' : 'NOT met';
}

/** Three significant digits with a k/M/G suffix: figures span from microseconds to millions. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${(n / 1e9).toPrecision(3)}G`;
  if (abs >= 1e6) return `${(n / 1e6).toPrecision(3)}M`;
  if (abs >= 1e3) return `${(n / 1e3).toPrecision(3)}k`;
  return n.toPrecision(3);
}

/** `16 B`, `1 KiB`: payload sizes as the issues name them. */
export function sizeLabel(bytes: number): string {
  return bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} B`;
}
