import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { clearSession, loadSession, type Role, type Session } from './session.js';
import { go, useRoute } from './route.js';
import { mayLeave } from './unsavedChanges.js';
import type { Page } from './page.js';
import { SignIn } from './signIn.js';
import { lacking, may } from './keyPermissions.js';
import { advertiserPages } from './advertiser/advertiserPages.js';
import { operatorPages } from './operator/operatorPages.js';
import { publisherPages } from './publisher/publisherPages.js';

const pagesOf: Record<Role, Page[]> = { advertiser: advertiserPages, publisher: publisherPages, operator: operatorPages };

export function Console() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const route = useRoute();
  // Signing in replaces the whole page, the focused button with it: the focus goes to the new page's
  // heading, where a screen reader starts reading, not to the document's body.
  const signedIn = useRef(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!session || !signedIn.current) return;
    signedIn.current = false;
    heading.current?.focus();
  }, [session]);
  if (!session) return html`<${SignIn} onSignedIn=${(next: Session) => { signedIn.current = true; setSession(next); }} />`;

  const pages = pagesOf[session.role];
  // No page named: the role's main page. A page named that the role does not have (a mistyped or
  // another role's link) says so, rather than showing the main page under the wrong address.
  const named = pages.find((candidate) => candidate.name === route.page);
  const page = route.page === '' ? pages[0]! : named;
  // Signing out drops the page and what is typed in it, as leaving it does: asked the same way.
  const signOut = () => {
    if (!mayLeave()) return;
    clearSession();
    setSession(null);
    go('');
  };
  return html`
    <a class="skip" href="#main" onClick=${(event: Event) => { event.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
    <header class="top">
      <span class="brand">adsvc console</span>
      <nav aria-label="Pages">
        <ul>
          ${pages.filter((candidate) => !candidate.hidden && may(session, candidate.needs)).map(
            (candidate) => html`<li><a href=${`#/${candidate.name}`} aria-current=${candidate === page ? 'page' : undefined}>${candidate.title}</a></li>`,
          )}
        </ul>
      </nav>
      <span class="who">Signed in as ${session.role}${session.organizationName !== undefined && html` of <span data-testid="organization-name">${session.organizationName}</span>`}${session.publisherName !== undefined && html` <span data-testid="publisher-name">${session.publisherName}</span>`}${session.permissions && html` <span data-testid="key-permissions">(key: ${session.permissions.join(', ') || 'no permission'})</span>`}</span>
      <button type="button" class="secondary" onClick=${signOut}>Sign out</button>
    </header>
    <main id="main" tabindex="-1">
      ${page
        ? html`<h1 tabindex="-1" ref=${heading}>${page.title}</h1>${may(session, page.needs) ? html`<${page.view} session=${session} route=${route} key=${page.name} />` : html`<p role="alert">${lacking[page.needs!]}</p>`}`
        : html`<h1 tabindex="-1" ref=${heading}>Page not found</h1>
          <p role="alert">There is no page <code>#/${route.page}</code> for the ${session.role}. Pick one above, or go to <a href=${`#/${pages[0]!.name}`}>${pages[0]!.title}</a>.</p>`}
    </main>`;
}
