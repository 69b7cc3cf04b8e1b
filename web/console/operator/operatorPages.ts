import type { Page } from '../page.js';
import { ReviewQueuePage } from './reviewQueuePage.js';
import { PlacementPage } from './placementPage.js';
import { PublishersPage } from './publishersPage.js';
import { PublisherPage } from './publisherPage.js';
import { OrganizationsPage } from './organizationsPage.js';
import { OrganizationPage } from './organizationPage.js';
import { TotalsPage } from './totalsPage.js';

export const operatorPages: Page[] = [
  { name: 'reviews', title: 'Integration reviews', view: ReviewQueuePage },
  { name: 'organizations', title: 'Organizations', view: OrganizationsPage },
  { name: 'organization', title: 'Organization', hidden: true, view: OrganizationPage },
  { name: 'publishers', title: 'Publishers', view: PublishersPage },
  { name: 'publisher', title: 'Publisher', hidden: true, view: PublisherPage },
  { name: 'placements', title: 'Placements', view: PlacementPage },
  { name: 'totals', title: 'Totals', view: TotalsPage },
];
