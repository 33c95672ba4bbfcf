import { useEffect, useRef, useState } from "preact/hooks";

/** One page of a listing the API answers with its total. */
export interface Page<T> {
  items: T[];
  total: number;
}

/**
 * A listing read a page at a time (Studio's notes, the community notes): `load(0)` reads it anew,
 * `load(items.length)` appends the next page. The first page is read on mount.
 *
 * `change` applies at once what the page itself did to the listing (a note saved or deleted). A page
 * asked for before such a change answers without it, so it is read again rather than shown: otherwise a
 * note saved while the first page was on its way vanished from the list, and from the create form, when
 * that page arrived.
 */
export function usePages<T>(read: (skip: number) => Promise<Page<T>>) {
  const [listing, setListing] = useState<Page<T>>({ items: [], total: 0 });
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  /** The listing as last set, for changes and reads that end between renders. */
  const latest = useRef(listing);
  const changes = useRef(0);

  const show = (next: Page<T>) => {
    latest.current = next;
    setListing(next);
  };
  const change = (update: (current: Page<T>) => Page<T>) => {
    changes.current += 1;
    show(update(latest.current));
  };

  const load = async (skip: number) => {
    setLoading(true);
    setError(null);
    try {
      let from = skip;
      for (;;) {
        const before = changes.current;
        const page = await read(from);
        if (changes.current === before) {
          show({
            items: from === 0 ? page.items : [...latest.current.items, ...page.items],
            total: page.total,
          });
          return;
        }
        // The listing changed while this page was on its way: a next page now starts where the shown items end.
        if (from > 0) from = latest.current.items.length;
      }
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => void load(0), []);
  return { items: listing.items, total: listing.total, loading, error, load, change };
}
