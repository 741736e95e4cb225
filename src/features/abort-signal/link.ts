/**
 * Aborting a signal closes every socket created with it. One `abort` listener per
 * signal, shared by all its sockets (a listener per socket would make Node print
 * `MaxListenersExceededWarning` past ten sockets on one signal, and cost an object per socket).
 */

/** What a signal closes: the socket its users hold. */
export interface Abortable {
  close(code: number, reason: string): void;
}

interface Link {
  readonly sockets: Set<Abortable>;
  readonly listener: () => void;
}

const links = /* @__PURE__ */ new WeakMap<AbortSignal, Link>();

/** Closes `socket` when `signal` aborts (the signal must not be aborted yet). @internal */
export function linkSignal(signal: AbortSignal, socket: Abortable): void {
  let link = links.get(signal);
  if (!link) {
    const sockets = new Set<Abortable>();
    const listener = (): void => {
      links.delete(signal);
      for (const each of [...sockets]) each.close(1000, 'aborted');
    };
    link = { sockets, listener };
    links.set(signal, link);
    signal.addEventListener('abort', listener, { once: true });
  }
  link.sockets.add(socket);
}

/** Undoes {@link linkSignal} (idempotent); the last socket of a signal removes its listener. @internal */
export function unlinkSignal(signal: AbortSignal, socket: Abortable): void {
  const link = links.get(signal);
  if (!link?.sockets.delete(socket) || link.sockets.size > 0) return;
  links.delete(signal);
  signal.removeEventListener('abort', link.listener);
}
