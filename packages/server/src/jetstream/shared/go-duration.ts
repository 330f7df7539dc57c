/** Nanoseconds written as Go's time.Duration.String() does (`1.5s`, `1m0s`, `500ms`). */
export function formatGoDuration(nanos: number): string {
  if (nanos === 0) return '0s';
  const sign = nanos < 0 ? '-' : '';
  const abs = Math.abs(nanos);
  if (abs < 1_000) return `${sign}${abs}ns`;
  if (abs < 1_000_000) return `${sign}${trim(abs / 1_000)}µs`;
  if (abs < 1_000_000_000) return `${sign}${trim(abs / 1_000_000)}ms`;
  const totalSeconds = abs / 1_000_000_000;
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = trim(totalSeconds - hours * 3600 - minutes * 60);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

function trim(value: number): string {
  return String(Number(value.toFixed(9)));
}
