import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script, without type declarations
import { checkLinks, headingText, splitMarkdown } from '../../scripts/check-links.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGE = 'docs/guide/delivery.md';

/** The prose paragraphs of a markdown text (tables, headings and fenced code aside), each as one line. */
function paragraphs(markdown: string): { heading: string; text: string }[] {
  const out: { heading: string; text: string }[] = [];
  let heading = '';
  let lines: string[] = [];
  const flush = () => {
    if (lines.length > 0) out.push({ heading, text: lines.join(' ') });
    lines = [];
  };
  let last = 0;
  for (const { line, text } of splitMarkdown(markdown).prose as { line: number; text: string }[]) {
    if (line !== last + 1) flush(); // a fenced block came between
    last = line;
    const atx = /^#{1,6}\s+(.*)$/.exec(text);
    if (atx) {
      flush();
      heading = headingText(atx[1] ?? '');
    } else if (text.trim() === '' || text.startsWith('|')) flush();
    else lines.push(text.trim());
  }
  flush();
  return out;
}

const STOP_WORDS = new Set(['a', 'an', 'and', 'the', 'of', 'in', 'is', 'to', 'for', 'on', 'your']);
const words = (text: string): string[] =>
  headingText(text)
    .toLowerCase()
    .match(/[\p{L}\p{N}_]+/gu) ?? [];

/** The runs of `n` words two paragraphs both contain. */
function sharedRuns(a: string, b: string, n: number): string[] {
  const runs = (text: string) => {
    const w = words(text);
    return new Set(w.slice(0, Math.max(0, w.length - n + 1)).map((_, i) => w.slice(i, i + n).join(' ')));
  };
  const inB = runs(b);
  return [...runs(a)].filter((run) => inB.has(run));
}

// Regression, it was: the page said its opening twice (two paragraphs, the second a reworded copy
// of the first), opened four sections by repeating their heading in bold ("## A persistent outbox"
// then "**A persistent outbox.**"), described ReliableServer's import twice, and pointed at
// `docs/protocol.md`, which does not exist (the page is docs/guide/protocol.md).
describe(PAGE, () => {
  const markdown = readFileSync(`${ROOT}${PAGE}`, 'utf8');

  it('says each thing once: no two paragraphs share a run of 8 words', () => {
    const all = paragraphs(markdown);
    const repeats: string[] = [];
    all.forEach((a, i) => {
      for (const b of all.slice(i + 1)) {
        const shared = sharedRuns(a.text, b.text, 8);
        if (shared.length > 0) repeats.push(`"${a.heading}" and "${b.heading}": ${shared[0]}`);
      }
    });
    expect(repeats).toEqual([]);
  });

  it('does not open a paragraph with a heading of the page in bold', () => {
    const all = paragraphs(markdown);
    const headings = [...new Set(all.map(({ heading }) => heading).filter(Boolean))];
    const content = (text: string) => words(text).filter((word) => !STOP_WORDS.has(word));
    const repeats = all.flatMap(({ text }) => {
      const lead = /^\*\*(.+?)\*\*/.exec(text)?.[1];
      if (lead === undefined) return [];
      const l = content(lead);
      return headings
        .filter((heading) => {
          const h = content(heading);
          const shared = l.filter((word) => h.includes(word)).length;
          return shared >= 2 || (shared > 0 && (shared === l.length || shared === h.length));
        })
        .map((heading) => `**${lead}** repeats "${heading}"`);
    });
    expect(repeats).toEqual([]);
  });

  it('every link and every path written as code resolves', () => {
    expect(checkLinks(ROOT, [PAGE])).toEqual([]);
  });
});
