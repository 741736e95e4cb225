/**
 * The browser examples and tests load the library's browser build (`dist/index.js`; the development
 * flavour is in `dist/dev/`). This builds it (`npm run build`) when either flavour is missing or
 * older than any file under `src/` or the tsup config, so a page never runs yesterday's code.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './static-server.js';

function newestMtime(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Why `dist/` needs a build, or undefined when it is up to date. */
export function buildReason(): string | undefined {
  let built = Number.POSITIVE_INFINITY;
  // Both flavours: the production one (dist/) and the development one (dist/dev/).
  for (const file of ['dist/index.js', 'dist/dev/index.js']) {
    try {
      built = Math.min(built, statSync(join(REPO_ROOT, file)).mtimeMs);
    } catch {
      return `${file} is missing`;
    }
  }
  const sources = Math.max(newestMtime(join(REPO_ROOT, 'src')), newestMtime(join(REPO_ROOT, 'tsup.config.ts')));
  return sources > built ? 'src/ changed since the last build' : undefined;
}

/** Runs `npm run build` if {@link buildReason} says so; throws if the build fails. */
export function ensureBuilt(log: (line: string) => void = console.log): void {
  const reason = buildReason();
  if (!reason) return;
  log(`building the library (${reason}): npm run build`);
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
