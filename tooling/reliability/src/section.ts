/** What a section of the campaign gets: its share of the budget and a place for its files. */
export interface SectionContext {
  /** Wall-clock time the section may use; it stops starting new cycles or trials after it. */
  readonly budgetMs: number;
  /** A fresh directory of its own (removed after the run). */
  readonly workDir: string;
  /** A progress line on the console (not in the report). */
  log(line: string): void;
}

/** One row of the report's table. */
export interface Figure {
  /** What was measured, e.g. "acknowledged messages lost". */
  readonly check: string;
  /** How many cycles or trials it covers, e.g. "32 cycles, 41,210 acknowledged". */
  readonly trials: string;
  /** Our server's figure. */
  readonly ours: string;
  /** nats-server 2.9.10's figure through the same trials, where it applies. */
  readonly reference?: string;
  /**
   * For a figure that is a promise (a must-be-0): whether ours kept it. A broken promise
   * marks the row and makes the campaign exit with status 1.
   */
  readonly holds?: boolean;
}

export interface SectionResult {
  readonly figures: readonly Figure[];
  /** Markdown under the section's heading: how it was measured, what the figures mean. */
  readonly details: string;
}

/** A named part of the campaign (a module under sections/). */
export interface Section {
  /** Its name on the command line (`--sections power-loss`). */
  readonly name: string;
  /** Its heading in docs/reliability.md. */
  readonly title: string;
  /** Its weight when the budget is divided among the sections that run. */
  readonly share: number;
  run(context: SectionContext): Promise<SectionResult>;
}
