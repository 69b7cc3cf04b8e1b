import { html } from 'htm/preact';

/**
 * A rate over a count that is 0 has no value: the API and the CSV write 0 (docs/reporting.md), but
 * on a page a CPC of 0 reads as "the clicks were free" (con43), and an eCPM of 0 as "impressions that
 * earned nothing" (con45). Every table of the console shows such a rate as this cell: "—" seen, and
 * its meaning (`none`: "no impressions") read out and shown on hover, since a lone "—" says nothing
 * to a screen reader. Each table says under it what its "—" stands for.
 */
export function NoRateCell({ none, column }: { none: string; column?: string }) {
  return html`<td class="num no-rate" title=${none} data-column=${column}><span aria-hidden="true">—</span><span class="visually-hidden">${none}</span></td>`;
}
