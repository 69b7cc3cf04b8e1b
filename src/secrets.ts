import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import type { Secrets } from './featureDeps.js';

export interface ResolvedSecrets extends Secrets {
  /** Files this start created, so the operator can be told where the new secrets are. */
  generated: string[];
}

/** Where the admin token is kept when ADMIN_TOKEN is unset: the server writes it, the CLI reads it. */
export function adminTokenFile(config: Pick<Config, 'DATA_DIR'>): string {
  return path.join(config.DATA_DIR, 'admin-token');
}

/**
 * ADMIN_TOKEN and TRACKING_SECRET from the environment, or, when unset, from DATA_DIR (created on
 * first start with mode 0600). Every instance behind a load balancer must share TRACKING_SECRET,
 * so in a multi-instance deployment set it in the environment.
 */
export function resolveSecrets(config: Config): ResolvedSecrets {
  const generated: string[] = [];
  const fromFile = (file: string): string => {
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
    adminToken: config.ADMIN_TOKEN ?? fromFile(adminTokenFile(config)),
    trackingSecret: config.TRACKING_SECRET ?? fromFile(path.join(config.DATA_DIR, 'tracking-secret')),
    generated,
  };
}

/** The admin token a CLI command sends when none is given: the one the server generated into DATA_DIR. */
export function readAdminTokenFile(config: Pick<Config, 'DATA_DIR'>): string {
  const file = adminTokenFile(config);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new Error(`no admin token: pass --token, set ADSVC_ADMIN_TOKEN, or start the server once to create ${file}`);
  }
}
