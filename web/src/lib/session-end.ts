import { useSyncExternalStore } from 'react';
import type { SessionEndReason } from './auth-guard';

let reason: SessionEndReason = null;
const listeners = new Set<() => void>();

/** Records why the session ended in this tab (null: signed in again). */
export function setSessionEndReason(next: SessionEndReason): void {
  if (reason === next) return;
  reason = next;
  for (const listener of listeners) listener();
}

/** Why the session ended in this tab, if it did. */
export function sessionEndReason(): SessionEndReason {
  return reason;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** {@link sessionEndReason}, re-rendering when it changes. */
export function useSessionEndReason(): SessionEndReason {
  return useSyncExternalStore(subscribe, sessionEndReason, sessionEndReason);
}
