/**
 * `npm run test:containers`: the whole suite against real postgres and clickhouse-server containers
 * started by testcontainers. Where no Docker engine answers, it says so and skips (exit 0).
 */
import { spawnSync } from 'node:child_process';
import { GenericContainer, Wait } from 'testcontainers';

const docker = spawnSync('docker', ['info'], { stdio: 'ignore' });
if (docker.status !== 0) {
  console.log('test:containers skipped: no Docker engine answers `docker info` on this machine.');
  process.exit(0);
}

const postgres = await new GenericContainer('postgres:16')
  .withEnvironment({ POSTGRES_PASSWORD: 'adsvc', POSTGRES_DB: 'adsvc_test' })
  .withExposedPorts(5432)
  .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
  .start();
const clickhouse = await new GenericContainer('clickhouse/clickhouse-server:24.8')
  .withEnvironment({ CLICKHOUSE_USER: 'adsvc', CLICKHOUSE_PASSWORD: 'adsvc', CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT: '1' })
  .withExposedPorts(8123)
  .withWaitStrategy(Wait.forHttp('/ping', 8123))
  .start();

try {
  const result = spawnSync('npx', ['vitest', 'run'], {
    stdio: 'inherit',
    env: {
      ...process.env,
      ADSVC_TEST_DATABASE_URL: `postgres://postgres:adsvc@${postgres.getHost()}:${postgres.getMappedPort(5432)}/adsvc_test`,
      ADSVC_TEST_CLICKHOUSE_URL: `http://${clickhouse.getHost()}:${clickhouse.getMappedPort(8123)}`,
      ADSVC_TEST_CLICKHOUSE_USER: 'adsvc',
      ADSVC_TEST_CLICKHOUSE_PASSWORD: 'adsvc',
    },
  });
  process.exitCode = result.status ?? 1;
} finally {
  await Promise.allSettled([postgres.stop(), clickhouse.stop()]);
}
