import { html } from 'htm/preact';
import { PagerNav } from './pagedList.js';

/** Rows a page in the report tables (the reporting routes take up to 1000; a page this size stays readable). */
export const ROWS_PER_PAGE = 100;

/** Where a report table stands: the offset it was asked for, and whether the route said more rows follow. */
export interface RowsPage {
  offset: number;
  hasMore: boolean;
}

/** "Rows 101–200" with the previous and next page of a report table (offset paging), when it has more than one. */
export function RowsPager({ page, shown, label, onOffset }: { page: RowsPage; shown: number; label: string; onOffset(offset: number): void }) {
  if (page.offset === 0 && !page.hasMore) return null;
  const first = page.offset + 1;
  const last = page.offset + shown;
  const position = first === last ? `Row ${first}` : `Rows ${first}–${last}`;
  return html`<${PagerNav} label=${label} position=${position}
    previous=${page.offset === 0 ? undefined : () => onOffset(Math.max(0, page.offset - ROWS_PER_PAGE))}
    next=${page.hasMore ? () => onOffset(page.offset + ROWS_PER_PAGE) : undefined} />`;
}
