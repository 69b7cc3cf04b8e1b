import { useEffect, useState } from 'preact/hooks';

/** The page is the location hash (#/report?campaign=…): bookmarkable, and no server routes needed. */
export interface Route {
  page: string;
  params: URLSearchParams;
}

function currentRoute(): Route {
  const [page = '', search = ''] = location.hash.replace(/^#\/?/, '').split('?');
  return { page, params: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = () => setRoute(currentRoute());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function go(page: string, params: Record<string, string> = {}): void {
  const search = new URLSearchParams(params).toString();
  location.hash = `#/${page}${search ? `?${search}` : ''}`;
}
