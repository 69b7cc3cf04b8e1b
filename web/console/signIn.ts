import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import type { AdvertiserMe } from './advertiser/advertiserApi.js';
import { saveSession, type Role, type Session } from './session.js';
import { ErrorMessage, Field } from './ui.js';

const roleInfo: Record<Role, { credential: string; hint: string; check: string }> = {
  advertiser: {
    credential: 'API key',
    hint: 'The key your operator created for your organization; sent as the x-api-key header.',
    check: '/v1/advertiser/me',
  },
  publisher: {
    credential: 'Publisher token',
    hint: 'The token your operator issued to your publisher account; sent as a Bearer token.',
    check: '/v1/publisher/me',
  },
  operator: {
    credential: 'Admin token',
    hint: "The service's ADMIN_TOKEN; sent as a Bearer token.",
    check: '/v1/admin/integration-reviews?limit=1',
  },
};

/**
 * Signs in by calling one of the role's own routes with the credential: a wrong or revoked one is
 * refused here, with the API's message, rather than on the first page. An advertiser's answers what
 * the key may do, so the pages offer only that; an advertiser's and a publisher's name who signed in,
 * for the header.
 */
export function SignIn({ onSignedIn }: { onSignedIn(session: Session): void }) {
  const [role, setRole] = useState<Role>('advertiser');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const info = roleInfo[role];

  async function submit(event: Event) {
    event.preventDefault();
    const session: Session = { role, secret: secret.trim() };
    setBusy(true);
    setError(null);
    try {
      const answer = await api<unknown>(session, 'GET', info.check);
      if (role === 'advertiser') {
        const { data } = answer as { data: AdvertiserMe };
        session.permissions = data.api_key.permissions;
        session.organizationName = data.organization.name;
      }
      if (role === 'publisher') session.publisherName = (answer as { data: { publisher: { name: string } } }).data.publisher.name;
      saveSession(session);
      onSignedIn(session);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return html`<main id="main" class="sign-in">
    <h1>Sign in to the adsvc console</h1>
    <form onSubmit=${submit} class="card">
      <fieldset>
        <legend>I am</legend>
        ${(Object.keys(roleInfo) as Role[]).map(
          (value) => html`<label class="choice">
            <input type="radio" name="role" value=${value} checked=${role === value} onChange=${() => setRole(value)} />
            ${value === 'advertiser' ? 'an advertiser' : value === 'publisher' ? 'a publisher' : 'an operator'}
          </label>`,
        )}
      </fieldset>
      <${Field} label=${info.credential} type="password" value=${secret} onInput=${setSecret} hint=${info.hint} required />
      <${ErrorMessage} error=${error} />
      <button type="submit" disabled=${busy}>Sign in</button>
      <p class="hint">The credential stays in this tab only (session storage) and is forgotten when the tab closes.</p>
    </form>
  </main>`;
}
