import type { Page } from '../page.js';
import { PublisherPlacementsPage } from './placementsPage.js';
import { IntegrationCheckPage } from './integrationCheckPage.js';
import { EarningsPage } from './earningsPage.js';

export const publisherPages: Page[] = [
  { name: 'placements', title: 'Placements', view: PublisherPlacementsPage },
  { name: 'earnings', title: 'Earnings', view: EarningsPage },
  { name: 'check', title: 'Integration check', view: IntegrationCheckPage },
];
