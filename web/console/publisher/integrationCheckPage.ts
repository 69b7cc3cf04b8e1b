import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, whileCurrent } from '../api.js';
import type { Route } from '../route.js';
import type { Session } from '../session.js';
import { ErrorMessage } from '../ui.js';
import { CertificationBadge, IntegrationCheckView, recentImpressionsPath, type IntegrationCheck } from '../placements.js';
import type { PublisherPlacement } from '../../../src/placements/publisherPlacementRepository.js';

/** One placement's integration check: its recent impressions and whether they came from browsers. */
export function IntegrationCheckPage({ session, route }: { session: Session; route: Route }) {
  const [placements, setPlacements] = useState<PublisherPlacement[]>([]);
  const id = route.params.get('id') ?? placements[0]?.id ?? '';
  const [check, setCheck] = useState<(IntegrationCheck & { placement: { certification: string } }) | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    api<{ data: PublisherPlacement[] }>(session, 'GET', '/v1/publisher/placements').then((answer) => setPlacements(answer.data), setError);
  }, []);
  useEffect(() => {
    if (!id) return;
    setError(null);
    return whileCurrent(api<{ data: IntegrationCheck & { placement: { certification: string } } }>(session, 'GET', recentImpressionsPath('/v1/publisher', id)),
      (answer) => setCheck(answer.data), setError);
  }, [id, version]);

  return html`
    <nav aria-label="Placements" class="actions">${placements.map((placement) => html`<a href=${`#/check?id=${encodeURIComponent(placement.id)}`}
      aria-current=${placement.id === id ? 'page' : undefined}>${placement.id}</a>`)}</nav>
    <${ErrorMessage} error=${error} />
    ${check && html`<h2>${id} <${CertificationBadge} state=${check.placement.certification} /></h2>
      <p class="hint">Each impression's origin: <strong>browser</strong> when a person's browser requested the pixel (what certification needs); <strong>server</strong> when a data-center address, a bot or an HTTP library did.</p>
      <${IntegrationCheckView} check=${check} />
      <button type="button" class="secondary" onClick=${() => setVersion((count) => count + 1)}>Refresh</button>`}`;
}
