/**
 * The demo's lane chart: one row per lane (the server, each client), one column per `step` ms.
 *
 * A lane is drawn from its state changes, not from samples: sampling every `step` ms loses a
 * connection or a gap shorter than a column (a 0.12 s reconnection drawn as one long connection).
 * The changes are grouped into phases, open (connected; for the server: up) or not, and each
 * column shows the phase that fills most of it, but every connection and every gap gets at least
 * one column however short: several phases within one column push the later ones a column
 * right (and, at the end of the chart, the earlier ones left). Only the wait before the first
 * connection may vanish when it is shorter than half a column (nothing was lost then). Inside a
 * gap each column shows the state that fills most of it (connecting, waiting out a delay…).
 */
import type { SocketState } from '../core/states.js';

/** A lane entered `state` at `at` ms from the start of the chart. */
export interface LaneChange {
  readonly at: number;
  readonly state: SocketState;
}

export interface Lane {
  readonly name: string;
  /** In time order; the lane is `idle` before the first. */
  readonly changes: readonly LaneChange[];
}

export const LANE_CHAR: Readonly<Record<SocketState, string>> = /* @__PURE__ */ Object.freeze({
  idle: ' ',
  connecting: '○',
  open: '█',
  reconnecting: '·',
  closing: '▁',
  closed: ' ',
});

/** A time in one state, `from` ≤ `to` (ms). */
interface Span {
  readonly state: SocketState;
  readonly from: number;
  readonly to: number;
}

/** A run of spans that are all open, or all not open. */
interface Phase {
  readonly open: boolean;
  readonly spans: Span[];
  /** Whether it must get a column: all but a wait before the first connection. */
  readonly shown: boolean;
}

/** The phases of `changes` up to `end` (changes at or after it are not drawn). */
function phasesOf(changes: readonly LaneChange[], end: number): Phase[] {
  const spans: Span[] = [];
  let state: SocketState = 'idle';
  let from = 0;
  for (const change of changes) {
    if (change.at >= end) break;
    if (change.state === state) continue;
    const at = Math.max(from, change.at);
    spans.push({ state, from, to: at });
    state = change.state;
    from = at;
  }
  spans.push({ state, from, to: end });

  const phases: Phase[] = [];
  for (const span of spans) {
    const open = span.state === 'open';
    const last = phases.at(-1);
    if (last?.open === open) last.spans.push(span);
    else phases.push({ open, spans: [span], shown: open || phases.length > 0 });
  }
  return phases;
}

/** The span that fills most of [from, to), the earliest on a tie; undefined when none does. */
function fullest(spans: readonly Span[], from: number, to: number): Span | undefined {
  let best: Span | undefined;
  let most = 0;
  for (const span of spans) {
    const covered = Math.max(0, Math.min(span.to, to) - Math.max(span.from, from));
    if (covered > most) {
      best = span;
      most = covered;
    }
  }
  return best;
}

/**
 * What column [from, to) of `phase` shows: the state that fills most of it; for a column pushed
 * outside the phase's time, the state that fills most of the phase (its first for a phase of 0 ms).
 */
function stateIn(phase: Phase, from: number, to: number): SocketState {
  const { spans } = phase;
  const first = spans[0] as Span;
  const whole = fullest(spans, first.from, (spans.at(-1) as Span).to);
  return (fullest(spans, from, to) ?? whole ?? first).state;
}

/**
 * One lane as `columns` characters (more when it has more phases that must show than that).
 * Column k covers [k·step, (k+1)·step) ms; `end` is when the chart stops.
 */
export function drawLane(changes: readonly LaneChange[], step: number, end: number, columns: number): string {
  const phases = phasesOf(changes, end);
  const least = phases.map((phase) => (phase.shown ? 1 : 0));
  const width = Math.max(columns, phases.filter((phase) => phase.shown).length);
  // Phase i covers columns [bounds[i], bounds[i + 1]): where it starts, rounded to the nearest
  // column, then moved so that each phase that must show gets at least one.
  const bounds = phases.map((phase, i) => (i === 0 ? 0 : Math.round((phase.spans[0] as Span).from / step)));
  bounds.push(width);
  const bound = (i: number): number => bounds[i] ?? 0;
  const min = (i: number): number => least[i] ?? 0;
  for (let i = 1; i < phases.length; i++) bounds[i] = Math.max(bound(i), bound(i - 1) + min(i - 1));
  for (let i = phases.length - 1; i >= 1; i--) bounds[i] = Math.min(bound(i), bound(i + 1) - min(i));

  let lane = '';
  phases.forEach((phase, i) => {
    for (let k = bound(i); k < bound(i + 1); k++) lane += LANE_CHAR[stateIn(phase, k * step, (k + 1) * step)];
  });
  return lane;
}

/** The chart: a title, one row per lane (all as wide), and the legend. */
export function laneChart(lanes: readonly Lane[], step: number, end: number): string {
  const columns = Math.max(
    Math.ceil(end / step),
    ...lanes.map((lane) => phasesOf(lane.changes, end).filter((phase) => phase.shown).length),
  );
  const nameWidth = Math.max(6, ...lanes.map((lane) => lane.name.length));
  return [
    `timeline, one column per ${step} ms:`,
    ...lanes.map((lane) => `  ${lane.name.padEnd(nameWidth)}  ${drawLane(lane.changes, step, end, columns)}`),
    '  █ open (server: up)   ○ connecting   · waiting out a backoff delay',
    '  each column shows what filled most of it; a connection or a gap shorter than a column still gets one',
  ].join('\n');
}
