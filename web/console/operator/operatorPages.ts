import type { Page } from '../consoleShell.js';
import { ReviewQueuePage } from './reviewQueuePage.js';
import { PlacementPage } from './placementPage.js';
import { PublishersPage } from './publishersPage.js';
import { TenancyPage } from './tenancyPage.js';

export const operatorPages: Page[] = [
  { name: 'reviews', title: 'Integration reviews', view: ReviewQueuePage },
  { name: 'placements', title: 'Placements', view: PlacementPage },
  { name: 'publishers', title: 'Publishers and tokens', view: PublishersPage },
  { name: 'organizations', title: 'Organizations, users and keys', view: TenancyPage },
];
