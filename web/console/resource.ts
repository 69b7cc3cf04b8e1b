import { useEffect, useState } from 'preact/hooks';
import { api, whileCurrent } from './api.js';
import type { Session } from './session.js';

/** One resource read from the API at `path` (its `data`), read again when the path changes; or why the read failed. */
export function useResource<T>(session: Session, path: string): { data: T | null; error: unknown } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setData(null);
    setError(null);
    return whileCurrent(api<{ data: T }>(session, 'GET', path), (answer) => setData(answer.data), setError);
  }, [path]);
  return { data, error };
}
