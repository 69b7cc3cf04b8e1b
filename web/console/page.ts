import type { Permission, Session } from './session.js';
import type { Route } from './route.js';

/** One page of a role's console: the shell lists a role's pages in its navigation and shows the one the route names. */
export interface Page {
  /** The hash page name; the first one is the role's main page. */
  name: string;
  title: string;
  /** Pages reached from another page (a campaign's detail) are not in the navigation. */
  hidden?: boolean;
  /** The permission an advertiser key needs for this page: without it the page is left out of the navigation and, opened, says why. */
  needs?: Permission;
  view(props: { session: Session; route: Route }): unknown;
}
