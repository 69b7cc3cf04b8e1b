import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { openStores } from '../runtime.js';
import { resolveSecrets } from '../secrets.js';
import { demoCreative } from './demoConversation.js';
import { startDemoPublisher } from './demoPublisher.js';
import { loadOrSeedDemo } from './demoState.js';

const usage = `usage: npm run demo -- [--port 8090] [--url http://127.0.0.1:8080 --admin-token TOKEN]

Starts adsvc on the embedded engines (data in $DATA_DIR, default ./data/demo; port $PORT, default
8080) unless --url names a running adsvc, seeds a demo advertiser, publisher and placement on first
start, and serves the demo publisher's chat page on --port.`;

interface Adsvc {
  url: string;
  adminToken: string;
  close(): Promise<void>;
}

/** adsvc in this process, configured for a browser on this machine: loopback traffic counts. */
async function startEmbeddedAdsvc(env: NodeJS.ProcessEnv, dataDir: string): Promise<Adsvc> {
  const port = env.PORT ?? '8080';
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    TRACKING_BASE_URL: url,
    SERVE_BASE_URL: url,
    IVT_ALLOW_PRIVATE_IPS: 'true',
    LOG_LEVEL: 'warn',
    ...env,
    DATA_DIR: dataDir,
    PORT: port,
    HOST: '127.0.0.1',
  });
  const stores = await openStores(config);
  const secrets = resolveSecrets(config);
  const app = await buildApp({ config, db: stores.db, ch: stores.ch, secrets, logger: { level: config.LOG_LEVEL } });
  await app.listen({ port: config.PORT, host: config.HOST });
  return {
    url,
    adminToken: secrets.adminToken,
    close: async () => {
      await app.close();
      await stores.close();
    },
  };
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '8090' },
      url: { type: 'string' },
      'admin-token': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const dataDir = env.DATA_DIR ?? './data/demo';
  mkdirSync(dataDir, { recursive: true });
  const adminToken = values['admin-token'] ?? env.ADSVC_ADMIN_TOKEN ?? env.ADMIN_TOKEN;
  if (values.url && !adminToken) throw new Error('with --url, pass --admin-token (or set ADSVC_ADMIN_TOKEN)');
  const adsvc: Adsvc = values.url
    ? { url: values.url.replace(/\/+$/, ''), adminToken: adminToken!, close: async () => {} }
    : await startEmbeddedAdsvc(env, dataDir);

  const demoUrl = `http://127.0.0.1:${values.port}`;
  const setup = await loadOrSeedDemo(dataDir, demoUrl, {
    adsvcUrl: adsvc.url,
    adminToken: adsvc.adminToken,
    creative: { ...demoCreative, destination_url: `${demoUrl}/landing`, image_url: `${demoUrl}/images/rain-shell.svg` },
  });
  const publisher = await startDemoPublisher({
    adsvcUrl: adsvc.url,
    publisherToken: setup.publisherToken,
    placementId: setup.placementId,
    port: Number(values.port),
    logger: { level: 'warn' },
  });

  const check = `${adsvc.url}/v1/publisher/placements/${setup.placementId}/recent-impressions`;
  console.log(`adsvc:           ${adsvc.url}${values.url ? '' : ` (embedded engines, data in ${dataDir})`}
demo publisher:  ${publisher.url}/   <- open this, scroll down to the ad, click it
${setup.seeded ? 'seeded' : 'reusing'} the demo tenant (${dataDir}/demo-publisher.json):
  placement ${setup.placementId}, campaign ${setup.campaignId}
integration check:
  curl -H 'Authorization: Bearer ${setup.publisherToken}' ${check}
report (impressions and clicks, after a second or so):
  curl -H 'x-api-key: ${setup.advertiserKey}' '${adsvc.url}/v1/advertiser/reporting/campaigns?campaign_ids=${setup.campaignId}'
Ctrl-C stops everything.`);

  const stop = async () => {
    await publisher.close();
    await adsvc.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main(process.argv.slice(2), process.env).catch((error: unknown) => {
  console.error(`demo: ${(error as Error).message}`);
  process.exit(1);
});
