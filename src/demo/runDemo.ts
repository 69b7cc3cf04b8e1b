import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.js';
import { startService } from '../server.js';
import { loggerOptions } from '../http/requestLogging.js';
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

/**
 * The environment's configuration with the demo's defaults: data in ./data/demo, and adsvc on this
 * machine's loopback for a browser here, so its links point there and loopback traffic counts.
 */
function demoConfig(env: NodeJS.ProcessEnv): Config {
  const url = `http://127.0.0.1:${loadConfig(env).PORT}`;
  return loadConfig({
    DATA_DIR: './data/demo',
    TRACKING_BASE_URL: url,
    SERVE_BASE_URL: url,
    IVT_ALLOW_PRIVATE_IPS: 'true',
    LOG_LEVEL: 'warn',
    ...env,
    HOST: '127.0.0.1',
  });
}

/** adsvc in this process, started the way `adsvc serve` starts it. */
async function startEmbeddedAdsvc(config: Config): Promise<Adsvc> {
  const service = await startService(config, loggerOptions(config.LOG_LEVEL));
  return { url: `http://127.0.0.1:${config.PORT}`, adminToken: service.secrets.adminToken, close: service.close };
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
  const config = demoConfig(env);
  const dataDir = config.DATA_DIR;
  mkdirSync(dataDir, { recursive: true });
  const adminToken = values['admin-token'] ?? config.ADSVC_ADMIN_TOKEN ?? config.ADMIN_TOKEN;
  if (values.url && !adminToken) throw new Error('with --url, pass --admin-token (or set ADSVC_ADMIN_TOKEN)');
  const adsvc: Adsvc = values.url
    ? { url: values.url.replace(/\/+$/, ''), adminToken: adminToken!, close: async () => {} }
    : await startEmbeddedAdsvc(config);

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
