import { useEffect, useState } from 'preact/hooks';
import { mayLeave } from './unsavedChanges.js';

/** The page is the location hash (#/report?campaign=…): bookmarkable, and no server routes needed. */
export interface Route {
  page: string;
  params: URLSearchParams;
}

function currentRoute(): Route {
  const [page = '', search = ''] = location.hash.replace(/^#\/?/, '').split('?');
  return { page, params: new URLSearchParams(search) };
}

/** Set by go(): the console's own move after an action (a campaign created), not a person leaving. */
let goingOnPurpose = false;

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = (event: HashChangeEvent) => {
      const leaving = goingOnPurpose || mayLeave();
      goingOnPurpose = false;
      // The address has changed already (a hash change cannot be cancelled): staying puts the page's
      // own address back, without a hashchange, and the page with its typed input stays as it is.
      if (!leaving) return history.pushState(null, '', event.oldURL);
      setRoute(currentRoute());
    };
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function go(page: string, params: Record<string, string> = {}): void {
  const search = new URLSearchParams(params).toString();
  const hash = `#/${page}${search ? `?${search}` : ''}`;
  // The same address fires no hashchange, which would leave the flag set for the next link.
  if (location.hash === hash) return;
  goingOnPurpose = true;
  location.hash = hash;
}
