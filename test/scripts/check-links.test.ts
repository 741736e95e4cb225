import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMarkdownRenderer } from 'vitepress';
import { describe, expect, it } from 'vitest';
import {
  anchorsOf,
  checkLinks,
  codePathsOf,
  documentationFiles,
  githubSlug,
  gitIgnored,
  splitMarkdown,
  vitepressSlug,
  // @ts-expect-error: a plain ES module script, without type declarations
} from '../../scripts/check-links.mjs';

const FIXTURE = fileURLToPath(new URL('./fixtures/links/', import.meta.url));
const CODE_FIXTURE = fileURLToPath(new URL('./fixtures/code-paths/', import.meta.url));

describe('check-links', () => {
  it('reports each broken file, anchor and link out of docs/, with file and line, and nothing else', () => {
    const files: string[] = documentationFiles(FIXTURE);
    expect(files).toEqual(['README.md', 'docs/guide/other.md', 'docs/guide/start.md', 'docs/index.md']);
    expect(checkLinks(FIXTURE, files)).toEqual([
      'README.md:3: docs/guide/start.md#nowhere: no heading with the anchor #nowhere in docs/guide/start.md',
      'README.md:4: docs/guide/gone.md: no such file',
      'README.md:4: #whats-new-in-v3: no heading with the anchor #whats-new-in-v3 in README.md',
      'docs/guide/other.md:3: start#first-step: no heading with the anchor #first-step in docs/guide/start.md',
      'docs/guide/other.md:5: ./missing.md: no such file',
      'docs/guide/start.md:16: #same-title-2: no heading with the anchor #same-title-2 in docs/guide/start.md',
      'docs/guide/start.md:16: ./other.md#über-uns: no heading with the anchor #über-uns in docs/guide/other.md',
      'docs/guide/start.md:16: ../../README.md: leaves docs/ (the site cannot serve it: link to the GitHub path as text instead)',
    ]);
  });

  it('slugs headings as VitePress renders them (checked against its own markdown renderer)', async () => {
    const md = await createMarkdownRenderer(FIXTURE, {}, '/');
    for (const page of ['docs/guide/start.md', 'docs/guide/other.md', 'docs/index.md']) {
      const source = readFileSync(`${FIXTURE}${page}`, 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
      const rendered = [...md.render(source).matchAll(/<h[1-6][^>]* id="([^"]+)"/g)].map((m) =>
        decodeURIComponent(m[1] ?? ''),
      );
      expect([...anchorsOf(source, 'vitepress')].sort(), page).toEqual(rendered.sort());
    }
    expect(vitepressSlug('`retry()` and friends')).toBe('retry-and-friends');
    expect(vitepressSlug('2. Numbers first')).toBe('_2-numbers-first');
    expect(vitepressSlug('Über uns')).toBe('uber-uns');
  }, 30_000);

  it('slugs README headings as GitHub does', () => {
    expect(githubSlug("What's new in v2?")).toBe('whats-new-in-v2');
    expect(githubSlug('Über uns')).toBe('über-uns');
    expect(githubSlug('A -- B')).toBe('a----b');
    expect(githubSlug('retry() and friends')).toBe('retry-and-friends');
    expect([...anchorsOf('# Same\n\n# Same\n\n```\n# not a heading\n```\n', 'github')]).toEqual(['same', 'same-1']);
  });

  it('splits markdown into prose and fenced blocks as CommonMark does (front matter, ~~~, longer and indented fences)', () => {
    const text = [
      '---',
      'title: x',
      '---',
      'one',
      '  ~~~~ ts extra',
      '```',
      '~~~',
      '~~~~~',
      'two',
      '   ```tsx',
      'code',
      '    ```',
      '``` not a close',
      '```',
      'three',
      '```',
      'never closed',
    ].join('\n');
    const { prose, fences } = splitMarkdown(text);
    expect(prose).toEqual([
      { line: 4, text: 'one' },
      { line: 9, text: 'two' },
      { line: 15, text: 'three' },
    ]);
    expect(
      fences.map(({ line, info, body }: { line: number; info: string; body: string[] }) => ({ line, info, body })),
    ).toEqual([
      { line: 5, info: 'ts extra', body: ['```', '~~~'] },
      { line: 10, info: 'tsx', body: ['code', '    ```', '``` not a close'] },
      { line: 16, info: '', body: ['never closed'] },
    ]);
  });

  // Regression, it was: only [text](target) links were checked, so `docs/protocol.md` written as
  // inline code in delivery.md and the changelog pointed at a page that does not exist, unnoticed.
  it('checks paths written as inline code (from the root or the folder of the file, with their #anchor), and nothing else', () => {
    const files: string[] = documentationFiles(CODE_FIXTURE);
    expect(files).toEqual(['README.md', 'CHANGELOG.md', 'docs/guide/page.md', 'docs/guide/protocol.md']);
    expect(checkLinks(CODE_FIXTURE, files)).toEqual([
      'README.md:4: `docs/protocol.md`: no such file',
      'README.md:4: `docs/guide/protocol.md#nowhere`: no heading with the anchor #nowhere in docs/guide/protocol.md',
      'README.md:4: `src/gone.ts`: no such file',
      'README.md:4: `src/missing/`: no such file',
      'CHANGELOG.md:3: `docs/protocol.md`: no such file',
      'docs/guide/page.md:4: `protocol.md#gone`: no heading with the anchor #gone in docs/guide/protocol.md',
      'docs/guide/page.md:4: `./missing.md`: no such file',
      'docs/guide/page.md:4: `guide/protocol.md`: no such file',
      'docs/guide/page.md:4: `./README.md`: no such file',
    ]);
  });

  it('takes as a path only inline code that reads as one: a .md file, or a path under a folder of the repository', () => {
    const top = new Set(['src', 'docs', 'test']);
    const spans = (text: string) => codePathsOf(text, top).map(({ target }: { target: string }) => target);
    expect(spans('`docs/a.md#x` `b.md` `./c.md` `../d.md` `src/e.ts` `test/f/` `src/g.ts#h` `` src/i.ts ``')).toEqual([
      'docs/a.md#x',
      'b.md',
      './c.md',
      '../d.md',
      'src/e.ts',
      'test/f/',
      'src/g.ts#h',
      'src/i.ts',
    ]);
    for (const code of [
      'resilient-socket/server',
      'core/machine.ts',
      'lib/websocket.js',
      'src/backoff/*.ts',
      'src/{a,b}.ts',
      'src/features/<name>',
      '/api/',
      '~/.cache/x',
      'src',
      'ws',
      'send()',
      'a / b',
      'npm run check:links',
      './src/x.ts',
      'https://example.com/a.md',
      '[x](y.md)',
    ])
      expect(spans(`\`${code}\``), code).toEqual([]);
    expect(spans('```\n`docs/fenced.md`\n```')).toEqual([]);
    expect(codePathsOf('a\n\nsee `docs/a.md`', top)).toEqual([{ line: 3, target: 'docs/a.md' }]);
  });

  it('leaves out what .gitignore leaves out (built folders are not in a clone)', () => {
    const ignored = gitIgnored(CODE_FIXTURE);
    expect(
      ['dist', 'dist/index.js', 'docs/api/index.md', 'node_modules/ws', 'src/node_modules/x'].filter(ignored),
    ).toHaveLength(5);
    expect(['docs/guide/page.md', 'src/dist.ts', 'docs/apis.md', 'README.md'].filter(ignored)).toEqual([]);
  });
});
