#!/usr/bin/env node
// Checks every relative link and #anchor of README.md, CHANGELOG.md and docs/**/*.md: the file must
// exist and the anchor must be a heading of it (or an explicit id), slugged as the page will be shown:
//   - docs/ pages as VitePress slugs them (its `slugify` plus markdown-it-anchor's `-1`, `-2` for
//     repeated headings; `{#id}` sets an id), and a link from docs/ must stay inside docs/ (VitePress
//     cannot serve ../README.md or ../examples/: it fails the build as a dead link);
//   - README.md and CHANGELOG.md (any markdown outside docs/) as GitHub slugs them.
// Links with a scheme (https:, mailto:) are not followed. docs/api/ is TypeDoc's output: links into
// it are checked when it has been generated (`npm run docs:api`), and refused with that advice when not.
//
// Paths written as inline code (`docs/guide/protocol.md#frames`, `src/core/machine.ts`) are checked
// too: a reader looks for them as for a link. See `codePathsOf` for which spans count; they resolve
// from the repository root or from the file's folder, whichever has them (`./`, `../`: the folder
// only), and a `.md` one's #anchor must be a heading of it. Paths under what .gitignore leaves out
// (dist/, docs/api/: built, not in a clone) are not checked.
//
// Usage: npm run check:links   (node scripts/check-links.mjs [repository root])

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// ------------------------------------------------------------------ slugs

const V_SPECIAL = /[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g;
const V_COMBINING = /[\u0300-\u036F]/g;

/** VitePress's slug of a heading's text (the same steps as its `slugify`). */
export function vitepressSlug(text) {
  return text
    .normalize('NFKD')
    .replace(V_COMBINING, '')
    .split('')
    .filter((char) => char.charCodeAt(0) >= 0x20)
    .join('')
    .replace(V_SPECIAL, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toLowerCase();
}

/** GitHub's slug of a heading's text: lower case, punctuation dropped, each space a hyphen. */
export function githubSlug(text) {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/**
 * A heading's text as the slugger sees it: markdown emphasis, links, images and HTML tags reduced
 * to their text (VitePress keeps only text and inline code; an image or an HTML tag adds nothing).
 */
export function headingText(source) {
  return source
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`([^`]*)`/g, (_, code) => code.replace(/[*_]/g, (c) => `\uE000${c}`))
    .replace(/(\*\*|__|\*|_)(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/\uE000/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .trim();
}

/**
 * One walk over a markdown text, front matter aside: its prose lines and its fenced blocks (CommonMark
 * fences: ``` or ~~~ at most three spaces in, closed by a run of the same character at least as long
 * with nothing after it; an unclosed block runs to the end). Lines are 1-based; a block's `line` is
 * that of its opening fence, `info` what follows the fence there.
 */
export function splitMarkdown(markdown) {
  const lines = markdown.split(/\r?\n/);
  const prose = [];
  const fences = [];
  let block;
  let i = 0;
  if (lines[0] === '---') {
    const end = lines.indexOf('---', 1);
    if (end > 0) i = end + 1;
  }
  for (; i < lines.length; i++) {
    const line = lines[i];
    const marker = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (block) {
      const closes =
        marker && marker[1][0] === block.fence[0] && marker[1].length >= block.fence.length && !/\S/.test(marker[2]);
      if (closes) block = undefined;
      else block.body.push(line);
    } else if (marker) {
      block = { line: i + 1, fence: marker[1], info: marker[2].trim(), body: [] };
      fences.push(block);
    } else {
      prose.push({ line: i + 1, text: line });
    }
  }
  return { prose, fences };
}

/** Lines of a markdown file outside front matter and fenced code, with their 1-based numbers. */
export function proseLines(markdown) {
  return splitMarkdown(markdown).prose;
}

/** The anchors of a markdown file: its headings slugged for `flavor`, plus explicit ids. */
export function anchorsOf(markdown, flavor) {
  const slug = flavor === 'vitepress' ? vitepressSlug : githubSlug;
  const anchors = new Set();
  const headings = new Set();
  const lines = proseLines(markdown);
  for (let k = 0; k < lines.length; k++) {
    const { text } = lines[k];
    for (const match of text.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"|\sid="([^"]+)"/g))
      anchors.add(match[1] ?? match[2]);
    let heading;
    const atx = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(text);
    if (atx) heading = atx[1];
    else if (
      k + 1 < lines.length &&
      lines[k + 1].line === lines[k].line + 1 &&
      /^ {0,3}(=+|-+)[ \t]*$/.test(lines[k + 1].text)
    ) {
      if (text.trim() !== '' && !/^ {0,3}([-*+]|\d+[.)])\s/.test(text) && !text.includes('|')) heading = text.trim();
    }
    if (heading === undefined) continue;
    const custom = flavor === 'vitepress' ? /\s*\{#([^}\s]+)\}\s*$/.exec(heading) : null;
    if (custom) {
      headings.add(custom[1]);
      anchors.add(custom[1]);
      continue;
    }
    const base = slug(headingText(heading));
    // markdown-it-anchor and GitHub both number a repeated slug: x, x-1, x-2…
    let unique = base;
    for (let n = 1; headings.has(unique); n++) unique = `${base}-${n}`;
    headings.add(unique);
    anchors.add(unique);
  }
  return anchors;
}

// ------------------------------------------------------------------ links

/** The link targets of a markdown file (inline links, images, reference definitions, href/src). */
export function linksOf(markdown) {
  const links = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/(`+)[^`]*?\1/g, (code) => ' '.repeat(code.length));
    for (const m of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+["'(][^)]*)?\)/g))
      links.push({ line, target: m[1] });
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose);
    if (definition) links.push({ line, target: definition[1] });
    for (const m of prose.matchAll(/\s(?:href|src)="([^"]*)"/g)) links.push({ line, target: m[1] });
  }
  return links;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:|^\/\//i;

/** An inline-code span that reads as a relative path, with an optional #anchor: no spaces, globs or placeholders. */
const CODE_PATH = /^((?:\.{1,2}\/)*[\w@+-][\w.@+-]*(?:\/[\w.@+-]+)*\/?)(?:#([^\s#`]+))?$/;

/**
 * The inline-code spans of a markdown file that name a path of the repository: every one ending in
 * `.md` (with or without an #anchor), and every one whose first folder is one of `topFolders` (the
 * repository's own: `src/…`, `test/…`, `scripts/…`, `docs/guide/`). Code that is not a path does
 * not match: `resilient-socket/server` (a package), `core/machine.ts` (not from the root), `ws`,
 * `src/backoff/*.ts` (a glob), `/api/` (a site path), `[x](y.md)`.
 */
export function codePathsOf(markdown, topFolders) {
  const paths = [];
  for (const { line, text } of proseLines(markdown)) {
    for (const [, , code] of text.matchAll(/(`+)(?!`)(.+?)(?<!`)\1(?!`)/g)) {
      const match = CODE_PATH.exec(code.trim());
      if (!match) continue;
      const [target, path] = match;
      const relativeToFolder = /^\.{1,2}\//.test(path);
      const first = path.split('/')[0];
      if (/\.md$/i.test(path) || (!relativeToFolder && path.includes('/') && topFolders.has(first)))
        paths.push({ line, target });
    }
  }
  return paths;
}

/**
 * A test of whether a repository path (relative, `/`-separated) is left out by `root`/.gitignore:
 * its folder patterns (`dist/`, `docs/api/`), names (`node_modules`) and `*.ext` patterns.
 */
export function gitIgnored(root) {
  const file = join(root, '.gitignore');
  const rules = [];
  if (existsSync(file)) {
    for (let rule of readFileSync(file, 'utf8').split(/\r?\n/)) {
      rule = rule.trim();
      if (rule === '' || rule.startsWith('#') || rule.startsWith('!')) continue;
      rule = rule.replace(/\/+$/, '');
      if (/^\*\.[^*?[/]+$/.test(rule)) {
        const ext = rule.slice(1);
        rules.push((segments) => segments.some((segment) => segment.endsWith(ext)));
      } else if (!/[*?[]/.test(rule)) {
        const anchored = rule.replace(/^\//, '').split('/');
        if (rule.includes('/')) rules.push((segments) => anchored.every((part, i) => segments[i] === part));
        else rules.push((segments) => segments.includes(rule));
      }
    }
  }
  return (path) => {
    const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.');
    return rules.some((rule) => rule(segments));
  };
}

/**
 * Every broken link of `files` (paths relative to `root`), as `file:line: target: why`. `docsDir`
 * is the VitePress source folder (relative to `root`).
 */
export function checkLinks(root, files, docsDir = 'docs') {
  const docs = resolve(root, docsDir);
  const api = join(docs, 'api');
  const problems = [];
  const anchorCache = new Map();
  const inDocs = (path) => path === docs || path.startsWith(docs + sep);
  const anchors = (file) => {
    if (!anchorCache.has(file))
      anchorCache.set(file, anchorsOf(readFileSync(file, 'utf8'), inDocs(file) ? 'vitepress' : 'github'));
    return anchorCache.get(file);
  };
  const isFile = (path) => existsSync(path) && statSync(path).isFile();
  const ignored = gitIgnored(root);
  const topFolders = new Set(
    readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== '.git' && !ignored(entry.name))
      .map((entry) => entry.name),
  );

  for (const file of files) {
    const source = resolve(root, file);
    const fromDocs = inDocs(source);
    const markdown = readFileSync(source, 'utf8');
    // This file's problems, put in line order once both walks are done.
    const fileProblems = [];
    for (const { line, target } of codePathsOf(markdown, topFolders)) {
      const hash = target.indexOf('#');
      const path = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? undefined : target.slice(hash + 1);
      const fromFolder = resolve(dirname(source), path);
      // A reader takes `./x` and `../x` from the file's folder, `a.md` from there first, and any
      // other path from the root first.
      const bases = /^\.{1,2}\//.test(path)
        ? [fromFolder]
        : path.includes('/')
          ? [resolve(root, path), fromFolder]
          : [fromFolder, resolve(root, path)];
      if (bases.some((base) => ignored(relative(root, base).split(sep).join('/')))) continue;
      const hit = bases.find((base) => (path.endsWith('/') ? existsSync(base) && !isFile(base) : existsSync(base)));
      const report = (why) => fileProblems.push({ line, problem: `${file}:${line}: \`${target}\`: ${why}` });
      if (!hit) report('no such file');
      else if (anchor !== undefined && extname(hit) === '.md' && isFile(hit) && !anchors(hit).has(anchor))
        report(`no heading with the anchor #${anchor} in ${relative(root, hit)}`);
    }
    for (const { line, target } of linksOf(markdown)) {
      if (target === '' || EXTERNAL.test(target)) continue;
      const report = (why) => fileProblems.push({ line, problem: `${file}:${line}: ${target}: ${why}` });
      const hash = target.indexOf('#');
      let path = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      path = decodeURIComponent(path.replace(/\?.*$/, ''));
      let resolved;
      if (path === '') resolved = source;
      else if (path.startsWith('/')) resolved = fromDocs ? join(docs, path) : join(root, path);
      else resolved = resolve(dirname(source), path);
      if (fromDocs && !inDocs(resolved)) {
        report(`leaves ${docsDir}/ (the site cannot serve it: link to the GitHub path as text instead)`);
        continue;
      }
      let found;
      if (fromDocs) {
        // A page is linked as name, name.md, name.html or folder/ (its index.md); an asset from public/.
        const bare = resolved.replace(/\.(md|html)$/, '');
        const candidates = path.endsWith('/') || path === '' ? [join(resolved, 'index.md')] : [];
        candidates.push(`${bare}.md`, join(bare, 'index.md'), resolved, join(docs, 'public', relative(docs, resolved)));
        if (path === '') candidates.unshift(source);
        found = candidates.find(isFile);
        if (!found && (resolved === api || resolved.startsWith(api + sep)) && !existsSync(api)) {
          report(`${docsDir}/api/ is not generated: run npm run docs:api first`);
          continue;
        }
      } else {
        found = isFile(resolved) ? resolved : existsSync(resolved) ? resolved : undefined;
      }
      if (!found) {
        report('no such file');
        continue;
      }
      if (anchor === undefined || anchor === '' || extname(found) !== '.md') continue;
      if (!anchors(found).has(anchor)) report(`no heading with the anchor #${anchor} in ${relative(root, found)}`);
    }
    fileProblems.sort((a, b) => a.line - b.line);
    problems.push(...fileProblems.map(({ problem }) => problem));
  }
  return problems;
}

/** README.md, CHANGELOG.md and every markdown file under docs/ but the generated reference, relative to `root`. */
export function documentationFiles(root, docsDir = 'docs') {
  const out = ['README.md', 'CHANGELOG.md'].filter((file) => existsSync(join(root, file)));
  const skip = new Set(['api', '.vitepress', 'node_modules', 'public']);
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!(dir === docsDir && skip.has(entry.name))) walk(path);
      } else if (entry.name.endsWith('.md')) out.push(path);
    }
  };
  if (existsSync(join(root, docsDir))) walk(docsDir);
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
  const files = documentationFiles(root);
  const problems = checkLinks(root, files);
  if (problems.length > 0) {
    console.error(`check-links: ${problems.length} broken link(s) in ${files.length} file(s):`);
    for (const problem of problems) console.error(`  ${problem}`);
    process.exitCode = 1;
  } else {
    console.log(`check-links: every relative link and anchor of ${files.length} file(s) resolves`);
  }
}
