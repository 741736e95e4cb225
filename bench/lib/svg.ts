/**
 * Minimal, dependency-free SVG charts for the benchmark reports: a line chart (one line per series),
 * a bar chart (a histogram) and a scatter chart (optionally log-log). Deterministic output, so a
 * chart only changes when the data does.
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
  label: (value: number) => string = format,
  margin: typeof MARGIN = MARGIN,
): string[] {
  const width = options.width ?? 720;
  const height = options.height ?? 420;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2 - margin.right / 2 + margin.left / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`,
  );
  const bottom = height - margin.bottom;
  const right = width - margin.right;
  for (const t of yTicks) {
    const y = yOf(t);
    parts.push(
      `<line x1="${margin.left}" x2="${right}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`,
      `<text x="${margin.left - 6}" y="${y + 4}" text-anchor="end">${label(t)}</text>`,
    );
  }
  for (const t of xTicks) {
    const x = xOf(t);
    parts.push(
      `<line x1="${x}" x2="${x}" y1="${bottom}" y2="${bottom + 5}" stroke="#333"/>`,
      `<text x="${x}" y="${bottom + 18}" text-anchor="middle">${label(t)}</text>`,
    );
  }
  parts.push(
    `<line x1="${margin.left}" x2="${right}" y1="${bottom}" y2="${bottom}" stroke="#333"/>`,
    `<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${bottom}" stroke="#333"/>`,
    `<text x="${(margin.left + right) / 2}" y="${height - 10}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`,
    `<text transform="translate(16 ${(margin.top + bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}</text>`,
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

/** One point of a scatter chart, with an optional small label drawn next to it. */
export interface ScatterPoint {
  readonly x: number;
  readonly y: number;
  readonly label?: string;
}

/** One group of points (one colour, one legend entry); its points are joined by a thin line, in order. */
export interface ScatterSeries {
  readonly name: string;
  readonly points: readonly ScatterPoint[];
}

export interface ScatterOptions extends ChartOptions {
  /** Logarithmic x axis (every x must be > 0). @default false */
  readonly logX?: boolean;
  /** Logarithmic y axis (every y must be > 0). @default false */
  readonly logY?: boolean;
  /** Reference curves y = value(x), drawn dashed across the plot (the first darker) and listed in the legend. */
  readonly guides?: readonly { readonly name: string; readonly value: (x: number) => number }[];
}

/** Ticks 1, 2, 5 × 10^k covering [min, max] on a log axis, from the one at or below min to the one at or above max. */
export function logTicks(min: number, max: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    for (const m of [1, 2, 5]) out.push(Number((m * 10 ** e).toPrecision(12)));
  }
  const lo = out.filter((t) => t <= min).at(-1) ?? out[0] ?? min;
  const hi = out.find((t) => t >= max) ?? max;
  return out.filter((t) => t >= lo && t <= hi);
}

/** The scatter chart's margins: a wider legend column. */
const SCATTER_MARGIN = { ...MARGIN, right: 250 };

const logLabel = (value: number): string => (value >= 1000 ? format(value) : String(Number(value.toPrecision(3))));

/**
 * A scatter chart: one colour per series, its points joined in order by a thin line, each point's
 * label next to it, the legend on the right. Linear axes start at 0; log axes span 1-2-5 ticks
 * around the data.
 */
export function scatterChart(series: readonly ScatterSeries[], options: ScatterOptions): string {
  const width = options.width ?? 720;
  const height = options.height ?? 420;
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  const axis = (values: number[], log: boolean, from: number, to: number) => {
    if (log) {
      if (values.some((v) => !(v > 0))) throw new RangeError('a log axis needs values > 0');
      // 15% headroom (in value) above the data, so that labels near the top end stay inside.
      const t = logTicks(Math.min(...values), Math.max(...values) * 1.15);
      const lo = Math.log10(t[0] as number);
      const hi = Math.log10(t.at(-1) as number);
      return { ticks: t, of: (v: number) => from + ((Math.log10(v) - lo) / (hi - lo || 1)) * (to - from) };
    }
    const t = ticks(Math.max(...values, 1));
    const top = t.at(-1) ?? 1;
    return { ticks: t, of: (v: number) => from + (v / top) * (to - from) };
  };
  const left = SCATTER_MARGIN.left;
  const right = width - SCATTER_MARGIN.right;
  const top = SCATTER_MARGIN.top;
  const bottom = height - SCATTER_MARGIN.bottom;
  const x = axis(xs, options.logX ?? false, left, right);
  const y = axis(ys, options.logY ?? false, bottom, top);
  const parts = frame(
    options,
    x.ticks,
    y.ticks,
    x.of,
    y.of,
    options.logX || options.logY ? logLabel : format,
    SCATTER_MARGIN,
  );
  parts.push(
    `<clipPath id="plot-area"><rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}"/></clipPath>`,
  );
  const [x0, x1] = [x.ticks[0] as number, x.ticks.at(-1) as number];
  const guideStyle = (i: number) =>
    i === 0 ? 'stroke="#555" stroke-dasharray="6 3"' : 'stroke="#aaa" stroke-dasharray="2 3"';
  for (const [g, guide] of (options.guides ?? []).entries()) {
    const steps = 64;
    const d: string[] = [];
    for (let i = 0; i <= steps; i++) {
      const v = options.logX ? x0 * (x1 / x0) ** (i / steps) : x0 + ((x1 - x0) * i) / steps;
      const gy = guide.value(v);
      if (!Number.isFinite(gy) || (options.logY && !(gy > 0))) continue;
      d.push(`${d.length === 0 ? 'M' : 'L'}${x.of(v).toFixed(1)},${y.of(gy).toFixed(1)}`);
    }
    parts.push(
      `<path d="${d.join(' ')}" fill="none" ${guideStyle(g)} stroke-width="1.2" clip-path="url(#plot-area)"/>`,
    );
  }
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    if (s.points.length > 1) {
      const d = s.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${x.of(p.x).toFixed(1)},${y.of(p.y).toFixed(1)}`);
      parts.push(`<path d="${d.join(' ')}" fill="none" stroke="${color}" stroke-width="1" stroke-opacity="0.45"/>`);
    }
    for (const p of s.points) {
      const [px, py] = [x.of(p.x).toFixed(1), y.of(p.y).toFixed(1)];
      parts.push(`<circle cx="${px}" cy="${py}" r="4" fill="${color}"/>`);
      if (p.label !== undefined) {
        parts.push(
          `<text x="${(Number(px) + 6).toFixed(1)}" y="${(Number(py) - 5).toFixed(1)}" font-size="9" fill="${color}">${escapeXml(p.label)}</text>`,
        );
      }
    }
    const ly = SCATTER_MARGIN.top + 10 + i * 20;
    parts.push(
      `<circle cx="${width - SCATTER_MARGIN.right + 27}" cy="${ly}" r="4" fill="${color}"/>`,
      `<text x="${width - SCATTER_MARGIN.right + 40}" y="${ly + 4}">${escapeXml(s.name)}</text>`,
    );
  });
  (options.guides ?? []).forEach((guide, i) => {
    const ly = SCATTER_MARGIN.top + 10 + (series.length + i) * 20;
    parts.push(
      `<line x1="${width - SCATTER_MARGIN.right + 15}" x2="${width - SCATTER_MARGIN.right + 38}" y1="${ly}" y2="${ly}" ${guideStyle(i)} stroke-width="1.2"/>`,
      `<text x="${width - SCATTER_MARGIN.right + 40}" y="${ly + 4}">${escapeXml(guide.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
