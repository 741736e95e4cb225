/**
 * Feature factories hand out one object for equal options, so that sockets created alike (the
 * full `ResilientSocket` makes its features from its options on every construction) still share
 * one configuration: a config compares its features by identity. The latest feature of each kind
 * is held weakly, as the config itself is.
 */
import type { Feature } from '../core/feature.js';

const latest = /* @__PURE__ */ new Map<string, WeakRef<Feature>>();

/** `made`, or an earlier feature of its kind whose `options` are equal (`Object.is`, key by key). */
export function intern<F extends Feature & { readonly options_?: object }>(made: F): F {
  const earlier = latest.get(made.name)?.deref() as F | undefined;
  const a = earlier?.options_ as Record<string, unknown> | undefined;
  const b = made.options_ as Record<string, unknown> | undefined;
  if (earlier && a && b && Object.keys(b).every((key) => Object.is(a[key], b[key]))) return earlier;
  latest.set(made.name, new WeakRef(made));
  return made;
}
