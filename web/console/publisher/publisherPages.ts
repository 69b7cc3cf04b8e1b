import type { Page } from '../consoleShell.js';
import { PublisherPlacementsPage } from './placementsPage.js';
import { IntegrationCheckPage } from './integrationCheckPage.js';

export const publisherPages: Page[] = [
  { name: 'placements', title: 'Placements', view: PublisherPlacementsPage },
  { name: 'check', title: 'Integration check', view: IntegrationCheckPage },
];
