/** A least-squares line through (x, y) samples: its slope, and the growth it predicts across x. */
export interface Trend {
  /** y units per x unit. */
  readonly slope: number;
  /** slope × (last x − first x): how much the line rises across the samples. */
  readonly growth: number;
  readonly mean: number;
}

export function fitTrend(xs: readonly number[], ys: readonly number[]): Trend {
  const n = xs.length;
  if (n < 2) return { slope: 0, growth: 0, mean: ys[0] ?? 0 };
  const meanX = xs.reduce((a, b) => a + b, 0) / n;
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (let i = 0; i < n; i++) {
    covariance += (xs[i] - meanX) * (ys[i] - meanY);
    variance += (xs[i] - meanX) ** 2;
  }
  const slope = variance === 0 ? 0 : covariance / variance;
  return { slope, growth: slope * (xs[n - 1] - xs[0]), mean: meanY };
}
