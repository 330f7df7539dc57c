import { type Better, formatNumber, formatRatio, ratioOf } from './table.js';

/** One figure of both servers (medians), with what the issue asks of it. */
export interface Cell {
  readonly reference: number;
  readonly ours: number;
  readonly better: Better;
  /** The ratio ours / reference asked for: a floor when higher is better, a ceiling otherwise. */
  readonly ratioTarget?: number;
  /** An absolute ceiling on ours (a memory or time budget), in the cell's unit. */
  readonly oursLimit?: number;
  /**
   * The ratio measured when the target was set, where it fell short of the target: a regression
   * is judged from where the figure stood, not from where it should get to.
   */
  readonly baseline?: number;
}

/** One workload: its main figure, and the server's CPU per message and peak RSS under it. */
export interface CapacityRow {
  readonly workload: string;
  /** Unit of the main figure: msgs/s, µs, MiB, ms. */
  readonly unit: string;
  readonly main: Cell;
  /** Server CPU µs per message (its threads' run time). */
  readonly cpu?: Cell;
  /** Peak RSS (VmHWM) over the workload's rounds, MiB. */
  readonly peakRss?: Cell;
}

/**
 * The capacity table: one line a workload with the three figures side by side, as the issue that
 * asked for it lays them out, and a verdict naming every target missed.
 */
export class CapacityTable {
  readonly rows: CapacityRow[] = [];
  private readonly notes: string[] = [];

  constructor(
    readonly title: string,
    readonly referenceName: string,
    readonly oursName: string,
  ) {}

  add(row: CapacityRow): void {
    this.rows.push(row);
  }

  note(text: string): void {
    this.notes.push(text);
  }

  /**
   * Figures with a floor on their ratio that fell below the floor (or the baseline under it)
   * divided by `slack`: what a short, noisy run still calls a regression.
   */
  regressions(slack: number): string[] {
    const found: string[] = [];
    for (const row of this.rows) {
      for (const [column, cell] of columns(row)) {
        if (cell.better !== 'higher' || cell.ratioTarget === undefined) continue;
        const floor = Math.min(cell.ratioTarget, cell.baseline ?? cell.ratioTarget) / slack;
        const ratio = cell.ours / cell.reference;
        if (!(ratio >= floor)) {
          found.push(
            `${row.workload}, ${column}: ${ratio.toFixed(2)}x, below ${floor.toFixed(2)}x`,
          );
        }
      }
    }
    return found;
  }

  render(): string {
    const [ref, ours] = [this.referenceName, this.oursName];
    const lines = [
      `### ${this.title}`,
      '',
      `| workload | figure | ${ref} | ${ours} | ours / ref | server CPU µs/msg, ${ref} | ${ours} | ours / ref | peak RSS MiB, ${ref} | ${ours} | targets |`,
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ];
    for (const row of this.rows) {
      const { cpu, peakRss } = row;
      lines.push(
        `| ${row.workload} | ${row.unit} | ${formatNumber(row.main.reference)} | ${formatNumber(row.main.ours)} | ${formatRatio(ratioOf(row.main.ours, row.main.reference))} | ${cpu ? formatNumber(cpu.reference) : ''} | ${cpu ? formatNumber(cpu.ours) : ''} | ${cpu ? formatRatio(ratioOf(cpu.ours, cpu.reference)) : ''} | ${peakRss ? formatNumber(peakRss.reference) : ''} | ${peakRss ? formatNumber(peakRss.ours) : ''} | ${verdict(row)} |`,
      );
    }
    if (this.notes.length > 0) lines.push('', ...this.notes.map((n) => `- ${n}`));
    return lines.join('\n');
  }
}

function columns(row: CapacityRow): [string, Cell][] {
  const named: [string, Cell | undefined][] = [
    [row.unit, row.main],
    ['server CPU', row.cpu],
    ['peak RSS', row.peakRss],
  ];
  return named.filter((entry): entry is [string, Cell] => entry[1] !== undefined);
}

/** `met`, or what was missed: `msgs/s < 1x, server CPU > 1.2x`. */
function verdict(row: CapacityRow): string {
  const missed: string[] = [];
  for (const [column, cell] of columns(row)) {
    const ratio = ratioOf(cell.ours, cell.reference);
    const higher = cell.better === 'higher';
    if (
      cell.ratioTarget !== undefined &&
      ratio !== undefined &&
      !(higher ? ratio >= cell.ratioTarget : ratio <= cell.ratioTarget)
    ) {
      missed.push(`${column} ${higher ? '<' : '>'} ${cell.ratioTarget}x`);
    }
    if (cell.oursLimit !== undefined && !(cell.ours <= cell.oursLimit)) {
      missed.push(`${column} > ${formatNumber(cell.oursLimit)}`);
    }
  }
  const targeted = columns(row).some(
    ([, c]) => c.ratioTarget !== undefined || c.oursLimit !== undefined,
  );
  if (!targeted) return '';
  return missed.length === 0 ? 'met' : `NOT met: ${missed.join(', ')}`;
}
