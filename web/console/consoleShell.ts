import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { clearSession, loadSession, type Role, type Session } from './session.js';
import { useRoute } from './route.js';
import type { Page } from './page.js';
import { SignIn } from './signIn.js';
import { advertiserPages } from './advertiser/advertiserPages.js';
import { operatorPages } from './operator/operatorPages.js';
import { publisherPages } from './publisher/publisherPages.js';

const pagesOf: Record<Role, Page[]> = { advertiser: advertiserPages, publisher: publisherPages, operator: operatorPages };

export function Console() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const route = useRoute();
  if (!session) return html`<${SignIn} onSignedIn=${setSession} />`;

  const pages = pagesOf[session.role];
  const page = pages.find((candidate) => candidate.name === route.page) ?? pages[0]!;
  const signOut = () => {
    clearSession();
    setSession(null);
    location.hash = '';
  };
  return html`
    <a class="skip" href="#main" onClick=${(event: Event) => { event.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
    <header class="top">
      <span class="brand">adsvc console</span>
      <nav aria-label="Pages">
        <ul>
          ${pages.filter((candidate) => !candidate.hidden).map(
            (candidate) => html`<li><a href=${`#/${candidate.name}`} aria-current=${candidate === page ? 'page' : undefined}>${candidate.title}</a></li>`,
          )}
        </ul>
      </nav>
      <span class="who">Signed in as ${session.role}</span>
      <button type="button" class="secondary" onClick=${signOut}>Sign out</button>
    </header>
    <main id="main" tabindex="-1">
      <h1>${page.title}</h1>
      <${page.view} session=${session} route=${route} key=${page.name} />
    </main>`;
}
