import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { seedDemo, type DemoSetup, type SeedOptions } from './demoSeed.js';

interface DemoState extends DemoSetup {
  /** The demo publisher's address when it was seeded: the creative's landing page lives there. */
  demoUrl: string;
}

/**
 * The demo tenant from DATA_DIR/demo-publisher.json when it still fits (same adsvc, same demo
 * address, placement still there); otherwise a new one, seeded through the APIs and saved for the
 * next start, so restarting the demo does not pile up campaigns.
 */
export async function loadOrSeedDemo(dataDir: string, demoUrl: string, options: SeedOptions): Promise<DemoSetup & { seeded: boolean }> {
  const file = path.join(dataDir, 'demo-publisher.json');
  const saved = readState(file);
  if (saved && saved.adsvcUrl === options.adsvcUrl && saved.demoUrl === demoUrl && (await placementExists(saved, options.adminToken))) {
    return { ...saved, seeded: false };
  }
  const setup = await seedDemo(options);
  const state: DemoState = { ...setup, demoUrl };
  writeFileSync(file, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  return { ...setup, seeded: true };
}

function readState(file: string): DemoState | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DemoState;
  } catch {
    return undefined;
  }
}

async function placementExists(state: DemoState, adminToken: string): Promise<boolean> {
  const response = await request(`${state.adsvcUrl}/v1/admin/placements/${encodeURIComponent(state.placementId)}`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  await response.body.dump();
  return response.statusCode === 200;
}
