/**
 * The admin API as CLI commands: each maps `adsvc <noun> <verb>` and its flags to one request.
 * Flags are `--name value`; what a command needs is listed in `usage`.
 */
export interface AdminCommand {
  usage: string;
  method: 'GET' | 'POST' | 'DELETE';
  path(flags: Flags, args: string[]): string;
  body?(flags: Flags): unknown;
  /**
   * One of the five admin creates that take an Idempotency-Key (docs/operating.md "Creating once"):
   * sent with a key of its own invocation, and sent again with it when the answer is lost (adminRequest.ts).
   */
  createsOnce?: true;
}

export type Flags = Record<string, string | undefined>;

/** A command that cannot be sent as given, or whose server cannot be reached: one line, exit 1, no stack. */
export class CommandError extends Error {}

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (!value) throw new CommandError(`--${name} is required`);
  return value;
}

function argument(args: string[], what: string): string {
  const value = args[0];
  if (!value) throw new CommandError(`${what} is required`);
  return encodeURIComponent(value);
}

export const adminCommands: Record<string, AdminCommand> = {
  'org create': {
    usage: 'adsvc org create --name NAME',
    method: 'POST',
    createsOnce: true,
    path: () => '/v1/admin/organizations',
    body: (flags) => ({ name: required(flags, 'name') }),
  },
  'user add': {
    usage: 'adsvc user add --org ORG_ID --email EMAIL',
    method: 'POST',
    path: (flags) => `/v1/admin/organizations/${encodeURIComponent(required(flags, 'org'))}/users`,
    body: (flags) => ({ email: required(flags, 'email') }),
  },
  'key create': {
    usage: 'adsvc key create --org ORG_ID --permissions campaigns,reporting',
    method: 'POST',
    createsOnce: true,
    path: (flags) => `/v1/admin/organizations/${encodeURIComponent(required(flags, 'org'))}/api-keys`,
    body: (flags) => ({ permissions: required(flags, 'permissions').split(',').map((p) => p.trim()) }),
  },
  'key revoke': {
    usage: 'adsvc key revoke KEY_ID',
    method: 'DELETE',
    path: (_flags, args) => `/v1/admin/api-keys/${argument(args, 'KEY_ID')}`,
  },
  'publisher create': {
    usage: 'adsvc publisher create --name NAME',
    method: 'POST',
    createsOnce: true,
    path: () => '/v1/admin/publishers',
    body: (flags) => ({ name: required(flags, 'name') }),
  },
  'publisher get': {
    usage: 'adsvc publisher get PUBLISHER_ID',
    method: 'GET',
    path: (_flags, args) => `/v1/admin/publishers/${argument(args, 'PUBLISHER_ID')}`,
  },
  'publisher revenue-share': {
    usage: 'adsvc publisher revenue-share PUBLISHER_ID',
    method: 'GET',
    path: (_flags, args) => `/v1/admin/publishers/${argument(args, 'PUBLISHER_ID')}/revenue-share`,
  },
  'publisher token': {
    usage: 'adsvc publisher token --publisher PUBLISHER_ID',
    method: 'POST',
    createsOnce: true,
    path: (flags) => `/v1/admin/publishers/${encodeURIComponent(required(flags, 'publisher'))}/tokens`,
  },
  'publisher revoke-token': {
    usage: 'adsvc publisher revoke-token TOKEN_ID',
    method: 'DELETE',
    path: (_flags, args) => `/v1/admin/publisher-tokens/${argument(args, 'TOKEN_ID')}`,
  },
  'placement create': {
    usage: 'adsvc placement create --publisher PUBLISHER_ID --id PLACEMENT_ID [--name NAME]',
    method: 'POST',
    createsOnce: true,
    path: (flags) => `/v1/admin/publishers/${encodeURIComponent(required(flags, 'publisher'))}/placements`,
    body: (flags) => ({ id: required(flags, 'id'), name: flags.name }),
  },
  'placement get': {
    usage: 'adsvc placement get PLACEMENT_ID',
    method: 'GET',
    path: (_flags, args) => `/v1/admin/placements/${argument(args, 'PLACEMENT_ID')}`,
  },
  'placement certify': {
    usage: 'adsvc placement certify PLACEMENT_ID [--reason TEXT]',
    method: 'POST',
    path: (_flags, args) => `/v1/admin/placements/${argument(args, 'PLACEMENT_ID')}/certify`,
    body: (flags) => ({ reason: flags.reason }),
  },
  'placement revoke': {
    usage: 'adsvc placement revoke PLACEMENT_ID [--reason TEXT]',
    method: 'POST',
    path: (_flags, args) => `/v1/admin/placements/${argument(args, 'PLACEMENT_ID')}/revoke`,
    body: (flags) => ({ reason: flags.reason }),
  },
};
