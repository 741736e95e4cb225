/**
 * Minimal, dependency-free SVG charts for the benchmark reports: a line chart (one line per series)
 * and a bar chart (a histogram). Deterministic output, so a chart only changes when the data does.
 */

/** One line of a line chart. */
export interface Series {
  readonly name: string;
  readonly points: readonly (readonly [x: number, y: number])[];
}

export interface ChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /** @default 720 */
  readonly width?: number;
  /** @default 420 */
  readonly height?: number;
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#17becf'];
const MARGIN = { top: 40, right: 170, bottom: 50, left: 70 };

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Round, human tick values covering [0, max]. */
export function ticks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  if ((out.at(-1) ?? 0) < max) out.push(Number(((out.at(-1) ?? 0) + step).toPrecision(12)));
  return out;
}

function format(value: number): string {
  if (value >= 10_000) return `${Math.round(value / 1000)}k`;
  if (value >= 1000) return `${(value / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function frame(
  options: ChartOptions,
  xTicks: number[],
  yTicks: number[],
  xOf: (x: number) => number,
  yOf: (y: number) => number,
): string[] {
  const width = options.width ?? 720;
  const height = options.height ?? 420;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2 - MARGIN.right / 2 + MARGIN.left / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`,
  );
  const bottom = height - MARGIN.bottom;
  const right = width - MARGIN.right;
  for (const t of yTicks) {
    const y = yOf(t);
    parts.push(
      `<line x1="${MARGIN.left}" x2="${right}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`,
      `<text x="${MARGIN.left - 6}" y="${y + 4}" text-anchor="end">${format(t)}</text>`,
    );
  }
  for (const t of xTicks) {
    const x = xOf(t);
    parts.push(
      `<line x1="${x}" x2="${x}" y1="${bottom}" y2="${bottom + 5}" stroke="#333"/>`,
      `<text x="${x}" y="${bottom + 18}" text-anchor="middle">${format(t)}</text>`,
    );
  }
  parts.push(
    `<line x1="${MARGIN.left}" x2="${right}" y1="${bottom}" y2="${bottom}" stroke="#333"/>`,
    `<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${bottom}" stroke="#333"/>`,
    `<text x="${(MARGIN.left + right) / 2}" y="${height - 10}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`,
    `<text transform="translate(16 ${(MARGIN.top + bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}</text>`,
  );
  return parts;
}

/** Axes from 0 to round ticks above the data, scale functions and the drawn frame. */
function plotArea(options: ChartOptions, xMax: number, yMax: number) {
  const width = options.width ?? 720;
  const height = options.height ?? 420;
  const xTicks = ticks(xMax);
  const yTicks = ticks(yMax);
  const xTop = xTicks.at(-1) ?? xMax;
  const yTop = yTicks.at(-1) ?? yMax;
  const xOf = (x: number) => MARGIN.left + (x / xTop) * (width - MARGIN.left - MARGIN.right);
  const yOf = (y: number) => height - MARGIN.bottom - (y / yTop) * (height - MARGIN.top - MARGIN.bottom);
  return { width, xOf, yOf, parts: frame(options, xTicks, yTicks, xOf, yOf) };
}

/** A line chart with a legend on the right, axes from 0. */
export function lineChart(series: readonly Series[], options: ChartOptions): string {
  const { width, xOf, yOf, parts } = plotArea(
    options,
    Math.max(...series.flatMap((s) => s.points.map(([x]) => x)), 1),
    Math.max(...series.flatMap((s) => s.points.map(([, y]) => y)), 1),
  );
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const d = s.points.map(([x, y], j) => `${j === 0 ? 'M' : 'L'}${xOf(x).toFixed(1)},${yOf(y).toFixed(1)}`).join(' ');
    parts.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`);
    const ly = MARGIN.top + 10 + i * 20;
    parts.push(
      `<line x1="${width - MARGIN.right + 15}" x2="${width - MARGIN.right + 40}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="3"/>`,
      `<text x="${width - MARGIN.right + 46}" y="${ly + 4}">${escapeXml(s.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** One group of bars (e.g. one library) in a histogram. */
export interface BarSeries {
  readonly name: string;
  /** One value per bin, all series with the same bins. */
  readonly values: readonly number[];
}

/**
 * Overlaid histograms: bins along x (bin i spans [i·binWidth, (i+1)·binWidth) in `xLabel` units),
 * one translucent step outline per series, so several distributions can be compared on one chart.
 */
export function histogram(series: readonly BarSeries[], binWidth: number, options: ChartOptions): string {
  const bins = Math.max(...series.map((s) => s.values.length), 1);
  const { width, xOf, yOf, parts } = plotArea(
    options,
    bins * binWidth,
    Math.max(...series.flatMap((s) => s.values), 1),
  );
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    let d = `M${xOf(0).toFixed(1)},${yOf(0).toFixed(1)}`;
    s.values.forEach((v, b) => {
      d += ` L${xOf(b * binWidth).toFixed(1)},${yOf(v).toFixed(1)} L${xOf((b + 1) * binWidth).toFixed(1)},${yOf(v).toFixed(1)}`;
    });
    d += ` L${xOf(s.values.length * binWidth).toFixed(1)},${yOf(0).toFixed(1)}`;
    parts.push(`<path d="${d}" fill="${color}" fill-opacity="0.15" stroke="${color}" stroke-width="1.5"/>`);
    const ly = MARGIN.top + 10 + i * 20;
    parts.push(
      `<rect x="${width - MARGIN.right + 15}" y="${ly - 6}" width="25" height="12" fill="${color}" fill-opacity="0.4" stroke="${color}"/>`,
      `<text x="${width - MARGIN.right + 46}" y="${ly + 4}">${escapeXml(s.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
