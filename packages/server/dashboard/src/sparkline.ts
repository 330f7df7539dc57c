const SVG = 'http://www.w3.org/2000/svg';

/** A small line chart of `values` (oldest first), scaled to its own maximum. */
export function sparkline(values: readonly number[], label: string): SVGSVGElement {
  const width = 120;
  const height = 32;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'spark');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const points = values
    .map((v, i) => `${(i * step).toFixed(1)},${(height - 2 - (v / max) * (height - 4)).toFixed(1)}`)
    .join(' ');
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute('points', points);
  svg.appendChild(line);
  return svg;
}
