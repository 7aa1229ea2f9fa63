import { useParams } from 'react-router';

/** The route's `name` parameter as a positive integer id, or null when it is not one. */
export function useIdParam(name: string): number | null {
  const raw = useParams()[name];
  if (!raw || !/^[1-9][0-9]{0,15}$/.test(raw)) return null;
  return Number(raw);
}
