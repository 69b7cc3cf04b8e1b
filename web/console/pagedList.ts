import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, query } from './api.js';
import type { Session } from './session.js';

/** A list's answer (openapi.yaml: the admin lists' KeysetPagination, the campaigns list): a page and the cursor of the next one. */
interface ListAnswer<Row> {
  data: Row[];
  pagination: { has_more: boolean; next_cursor: string | null };
}


export interface PagedList<Row> {
  rows: Row[] | null;
  error: unknown;
  pageNumber: number;
  next?: () => void;
  previous?: () => void;
}

/**
 * One page of a list at a time (an admin list, the campaigns), walked with the API's next_cursor.
 * The cursors of the pages seen are kept, so "Previous page" goes back without offsets; `version`
 * reloads the current page (after a create or a revoke).
 */
export function usePagedList<Row>(session: Session, path: string, version: number, pageSize = 20): PagedList<Row> {
  // Kept with the list they belong to: opening another organization starts at its first page.
  const [walk, setWalk] = useState<{ path: string; cursors: string[] }>({ path, cursors: [] });
  const cursors = walk.path === path ? walk.cursors : [];
  const setCursors = (next: string[]) => setWalk({ path, cursors: next });
  const [loaded, setLoaded] = useState<{ url: string; answer: ListAnswer<Row> } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const url = path + query({ limit: pageSize, cursor: cursors.at(-1) });
  useEffect(() => {
    setError(null);
    api<ListAnswer<Row>>(session, 'GET', url).then((answer) => setLoaded({ url, answer }), setError);
  }, [url, version]);
  // Another page shows nothing until it has loaded (never the rows of the page before under its
  // number); a reload of the same page keeps its rows until the new ones arrive.
  const answer = loaded?.url === url ? loaded.answer : null;
  const nextCursor = answer?.pagination.next_cursor;
  return {
    rows: answer?.data ?? null,
    error,
    pageNumber: cursors.length + 1,
    next: nextCursor ? () => setCursors([...cursors, nextCursor]) : undefined,
    previous: cursors.length > 0 ? () => setCursors(cursors.slice(0, -1)) : undefined,
  };
}

/**
 * The Previous page and Next page buttons of a list or a report table, and where it stands. A
 * button with no page to go to is marked aria-disabled (same look), never disabled: on the last
 * page Next page is the button just pressed, and a disabled one drops the keyboard focus to
 * <body>, so the next Tab started from the top of the page. A press on a marked one does nothing.
 */
export function PagerNav({ label, position, previous, next }: { label: string; position: string; previous?: () => void; next?: () => void }) {
  const button = (text: string, go?: () => void) =>
    html`<button type="button" class="secondary" aria-disabled=${go ? undefined : 'true'} onClick=${() => go?.()}>${text}</button>`;
  return html`<nav class="actions pager" aria-label=${`Pages of ${label}`}>
    ${button('Previous page', previous)}
    <span>${position}</span>
    ${button('Next page', next)}
  </nav>`;
}

export function Pager({ list, label }: { list: PagedList<unknown>; label: string }) {
  if (!list.next && !list.previous) return null;
  return html`<${PagerNav} label=${label} position=${`Page ${list.pageNumber}`} previous=${list.previous} next=${list.next} />`;
}

/**
 * A listed credential's row (an API key, a publisher token): its cells, then a revoke button that
 * calls the API and lets the list reload. Asked twice: the first click shows what revoking does
 * and a "Yes, revoke" button (focused, so a keyboard user lands on the question) beside Cancel. A
 * key or token is a live credential and a revocation cannot be undone, so a mis-click must not take
 * an integration down. In-page rather than window.confirm: the console shows every answer and
 * question in the page, where screen readers and the tests read them. The question is a row of its
 * own under the credential's, across the table (`columns` wide): in the action cell it widened a
 * table already wider than a phone's screen, and sat half past the screen's edge at 390 px.
 * Once revoked, the row has no button left to hold the focus: it goes to the next row's Revoke, or
 * when there is none to the list's heading (the table's aria-labelledby), never back to the page.
 */
export function RevocableRow({ cells, columns, revoked, label, run, onDone, onError }: {
  cells: ComponentChildren;
  columns: number;
  revoked: boolean;
  label: string;
  run(): Promise<unknown>;
  onDone(): void;
  onError(error: unknown): void;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  const revoke = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  const row = useRef<HTMLTableRowElement>(null);
  /** Where the focus goes when the question closes: this row's Revoke, or after a revoke focusAfterRevoke's. */
  const focusNext = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
    else if (asked.current) (focusNext.current ?? revoke.current)?.focus();
    asked.current = asking;
    focusNext.current = null;
  }, [asking]);
  async function click() {
    setBusy(true);
    try {
      await run();
      // The row stays (now revoked): its question goes, and its Revoke button once the list reloads.
      focusNext.current = focusAfterRevoke(row.current);
      setAsking(false);
      onDone();
    } catch (failure) {
      onError(failure);
      setAsking(false);
    } finally {
      setBusy(false);
    }
  }
  return html`<tr ref=${row}>
      ${cells}
      <td>${!revoked && html`<button type="button" class="secondary revoke" aria-label=${label} aria-expanded=${asking} ref=${revoke} disabled=${busy} onClick=${() => setAsking(!asking)}>Revoke</button>`}</td>
    </tr>
    ${asking && html`<tr class="question"><td colspan=${columns}>
      <div class="confirm" role="group" aria-label=${label}>
        <p>Revoke it? Whatever uses it stops working at once; this cannot be undone.</p>
        <button type="button" ref=${confirm} disabled=${busy} onClick=${click}>Yes, revoke</button>
        <button type="button" class="secondary" disabled=${busy} onClick=${() => setAsking(false)}>Cancel</button>
      </div>
    </td></tr>`}`;
}

/** The next row's Revoke button, or else the heading that names the row's table (its aria-labelledby). */
function focusAfterRevoke(row: HTMLTableRowElement | null): HTMLElement | null {
  for (let next = row?.nextElementSibling; next; next = next.nextElementSibling) {
    const button = next.querySelector<HTMLButtonElement>('button.revoke');
    if (button) return button;
  }
  const heading = row?.closest('table')?.getAttribute('aria-labelledby');
  return heading ? document.getElementById(heading) : null;
}

/** Where a listed secret stands: keys and tokens are never shown again, only whether they still work. */
export function SecretState({ revokedAt }: { revokedAt: string | null }) {
  return revokedAt
    ? html`<span class="status status-revoked">revoked</span>`
    : html`<span class="status status-active">live</span>`;
}
