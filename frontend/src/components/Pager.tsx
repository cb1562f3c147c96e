/** What a paginated answer of the API says about its neighbours (`next`/`previous` are URLs or null). */
export type PageInfo = { count: number; next?: string | null; previous?: string | null };

type Props = {
  /** The page shown, from 1. */
  page: number;
  /** The page's answer; nothing is drawn while it is missing or when everything fits on one page. */
  data: PageInfo | undefined;
  /** What is counted: "Page 2 · 120 runs". */
  noun: string;
  onPage: (page: number) => void;
};

/** Previous / Next under a paginated list, with the page number and the total. */
export function Pager({ page, data, noun, onPage }: Props) {
  if (!data || (!data.next && !data.previous)) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="btn small" disabled={!data.previous} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span className="muted">
        Page {page} · {data.count} {noun}
      </span>
      <button type="button" className="btn small" disabled={!data.next} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
