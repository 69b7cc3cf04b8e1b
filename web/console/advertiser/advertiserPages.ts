import type { Page } from '../page.js';
import { CampaignsPage } from './campaignsPage.js';
import { ComposePage } from './composeForm.js';
import { CampaignPage } from './campaignPage.js';
import { ReportPage } from './reportPage.js';

export const advertiserPages: Page[] = [
  { name: 'campaigns', title: 'Campaigns', view: CampaignsPage },
  { name: 'compose', title: 'New campaign', needs: 'campaigns', view: ComposePage },
  { name: 'campaign', title: 'Campaign', hidden: true, view: CampaignPage },
  { name: 'report', title: 'Reports', needs: 'reporting', view: ReportPage },
];
