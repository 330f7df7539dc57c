const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Reads a time budget such as `90s`, `10m` or `1h30m` (Go's duration units from ms to h) into milliseconds. */
export function parseDuration(text: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  const consumed = parts.map((part) => part[0]).join('');
  if (parts.length === 0 || consumed !== text) {
    throw new Error(`"${text}" is not a duration: write it like 90s, 10m or 1h30m`);
  }
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * units[unit], 0);
}

/** Milliseconds as the shortest of `45s`, `12m`, `1h5m`, for the report. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1_000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  return `${Math.floor(minutes / 60)}h${minutes % 60 ? `${minutes % 60}m` : ''}`;
}
