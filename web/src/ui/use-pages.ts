import { useEffect, useState } from "preact/hooks";

/** One page of a listing the API answers with its total. */
export interface Page<T> {
  items: T[];
  total: number;
}

/**
 * A listing read a page at a time (Studio's notes, the community notes): `load(0)` reads it anew,
 * `load(items.length)` appends the next page. The first page is read on mount.
 */
export function usePages<T>(read: (skip: number) => Promise<Page<T>>) {
  const [items, setItems] = useState<T[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);

  const load = async (skip: number) => {
    setLoading(true);
    setError(null);
    try {
      const page = await read(skip);
      setItems((current) => (skip === 0 ? page.items : [...current, ...page.items]));
      setTotal(page.total);
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => void load(0), []);
  return { items, setItems, total, setTotal, loading, error, load };
}
