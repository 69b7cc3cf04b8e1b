import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import type { Secrets } from './featureDeps.js';

export interface ResolvedSecrets extends Secrets {
  /** Files this start created, so the operator can be told where the new secrets are. */
  generated: string[];
}

/**
 * ADMIN_TOKEN and TRACKING_SECRET from the environment, or, when unset, from DATA_DIR (created on
 * first start with mode 0600). Every instance behind a load balancer must share TRACKING_SECRET,
 * so in a multi-instance deployment set it in the environment.
 */
export function resolveSecrets(config: Config): ResolvedSecrets {
  const generated: string[] = [];
  const fromFile = (name: string): string => {
    const file = path.join(config.DATA_DIR, name);
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const secret = randomBytes(32).toString('base64url');
      writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
      generated.push(file);
      return secret;
    }
  };
  return {
    adminToken: config.ADMIN_TOKEN ?? fromFile('admin-token'),
    trackingSecret: config.TRACKING_SECRET ?? fromFile('tracking-secret'),
    generated,
  };
}
