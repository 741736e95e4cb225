/**
 * Global setup of the `browser` vitest project: the pages load the library's browser build
 * (`dist/index.js`), so build it first when it is missing or older than `src/`.
 */
import { ensureBuilt } from '../../examples/lib/ensure-build.js';

export default function setup(): void {
  ensureBuilt();
}
