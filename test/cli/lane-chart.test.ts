import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drawLane, type LaneChange, laneChart } from '../../src/cli/lane-chart.js';
import type { SocketState } from '../../src/core/states.js';

const STEP = 200;

/** `[ms, state]` pairs as lane changes. */
const lane = (...changes: [number, SocketState][]): LaneChange[] => changes.map(([at, state]) => ({ at, state }));

/** The connections a drawn lane shows: its runs of █. */
const connections = (drawn: string): number => drawn.match(/█+/g)?.length ?? 0;

describe('drawLane', () => {
  it('draws each column as the state that fills most of it', () => {
    const drawn = drawLane(
      lane([0, 'connecting'], [40, 'open'], [1_000, 'reconnecting'], [1_390, 'connecting'], [1_610, 'open']),
      STEP,
      2_000,
      10,
    );
    expect(drawn).toBe('█████··○██');
  });

  // Regression, it was: the chart sampled the state every 200 ms, so a reconnection between two
  // samples vanished: client A's 0.12 s disconnection at 6.88 s, a summary of 3 connects, a chart of 2.
  it('shows a gap shorter than a column: 3 connects, 3 connections in the chart', () => {
    const changes = lane(
      [30, 'connecting'],
      [40, 'open'],
      [2_000, 'reconnecting'],
      [2_004, 'connecting'],
      [2_006, 'reconnecting'],
      [5_160, 'connecting'],
      [5_170, 'open'],
      [6_880, 'reconnecting'],
      [6_950, 'connecting'],
      [7_000, 'open'],
    );
    const drawn = drawLane(changes, STEP, 10_500, 53);
    expect(drawn).toHaveLength(53);
    expect(connections(drawn)).toBe(3);
    // The gap takes the column it is in (6.8–7.0 s), the connections keep their time around it.
    expect(drawn.slice(30, 37)).toBe('████·██');
    expect(drawn.slice(0, 11)).toBe('██████████·');
  });

  it('shows a connection shorter than a column', () => {
    const drawn = drawLane(
      lane(
        [0, 'connecting'],
        [10, 'open'],
        [450, 'reconnecting'],
        [1_210, 'connecting'],
        [1_215, 'open'],
        [1_240, 'reconnecting'],
      ),
      STEP,
      2_000,
      10,
    );
    expect(drawn).toBe('██····█···');
    expect(connections(drawn)).toBe(2);
  });

  it('gives each of several changes within one column a column of its own, in order', () => {
    // Three connections and two gaps, all within 1.00–1.05 s.
    const drawn = drawLane(
      lane(
        [0, 'open'],
        [1_000, 'connecting'],
        [1_010, 'open'],
        [1_020, 'connecting'],
        [1_030, 'open'],
        [1_040, 'reconnecting'],
      ),
      STEP,
      2_000,
      10,
    );
    expect(drawn).toBe('█████○█○█·');
    expect(connections(drawn)).toBe(3);
  });

  it('a gap at the very end still shows, taking the last column', () => {
    const drawn = drawLane(lane([0, 'connecting'], [20, 'open'], [1_990, 'reconnecting']), STEP, 2_000, 10);
    expect(drawn).toBe('█████████·');
  });

  it('the wait before the first connection shows only when it fills half a column', () => {
    expect(drawLane(lane([30, 'connecting'], [40, 'open']), STEP, 1_000, 5)).toBe('█████');
    expect(drawLane(lane([30, 'connecting'], [350, 'open']), STEP, 1_000, 5)).toBe('○○███');
  });

  it('draws nothing of what comes at or after the end', () => {
    expect(drawLane(lane([0, 'open'], [1_000, 'closing'], [1_001, 'closed']), STEP, 1_000, 5)).toBe('█████');
  });

  it('property: every connection and every gap shows, in order, and a lane is exactly as wide as asked when it can be', () => {
    const states: SocketState[] = ['connecting', 'open', 'reconnecting', 'closing', 'closed'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 300 }), fc.constantFrom(...states)), { maxLength: 40 }),
        fc.integer({ min: 1, max: 30 }),
        (steps, columns) => {
          let at = 0;
          const changes = steps.map(([gap, state]) => {
            at += gap;
            return { at, state };
          });
          const end = columns * STEP;
          // The phases (runs of open / not open) before the end, the expected picture.
          const phases: boolean[] = [];
          let previous: SocketState = 'idle';
          for (const change of changes) {
            if (change.at >= end || change.state === previous) continue;
            previous = change.state;
            const open = change.state === 'open';
            if (phases.at(-1) !== open) phases.push(open);
          }
          const opens = phases.filter(Boolean).length;
          const drawn = drawLane(changes, STEP, end, columns);
          expect(connections(drawn)).toBe(opens);
          // Gaps after a connection: each a run of non-█ after a █.
          const gaps = drawn.replace(/^[^█]*/, '').match(/[^█]+/g)?.length ?? 0;
          expect(gaps).toBe(phases.filter((open, i) => !open && phases.slice(0, i).includes(true)).length);
          const shown = phases.filter((open, i) => open || phases.slice(0, i).includes(true)).length;
          expect(drawn).toHaveLength(Math.max(columns, shown));
        },
      ),
    );
  });
});

describe('laneChart', () => {
  it('one row per lane, all as wide, with the title and the legend', () => {
    const chart = laneChart(
      [
        { name: 'server', changes: lane([10, 'open'], [400, 'closed'], [800, 'open']) },
        { name: 'A', changes: lane([20, 'connecting'], [25, 'open'], [400, 'reconnecting'], [830, 'open']) },
      ],
      STEP,
      1_000,
    );
    expect(chart.split('\n')).toEqual([
      'timeline, one column per 200 ms:',
      '  server  ██  █',
      '  A       ██··█',
      '  █ open (server: up)   ○ connecting   · waiting out a backoff delay',
      '  each column shows what filled most of it; a connection or a gap shorter than a column still gets one',
    ]);
  });
});
