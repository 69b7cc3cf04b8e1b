import { parseArgs } from 'node:util';
import { z } from 'zod';

export const scenarioNames = ['serve', 'track', 'ingest', 'report', 'management', 'import', 'serve-counts', 'serve-semantic', 'serve-controls'] as const;
export type ScenarioName = (typeof scenarioNames)[number];

const optionsSchema = z.object({
  scenario: z.enum([...scenarioNames, 'all'], { error: `name a scenario: ${[...scenarioNames, 'all'].join(', ')}` }),
  url: z
    .url()
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  full: z.boolean(),
  duration: z.coerce.number().positive().max(600).optional(),
  connections: z.coerce.number().int().min(1).max(1000).optional(),
  lineItems: z.coerce.number().int().min(1).max(1_000_000).optional(),
  semanticShare: z.coerce.number().gt(0).max(1).optional(),
  semanticBodies: z.enum(['mixed', 'serve', 'evaluation']).optional(),
  events: z.coerce.number().int().min(1).max(10_000_000_000).optional(),
  keepData: z.string().min(1).optional(),
  throughToday: z.boolean(),
  pastWindow: z.boolean(),
  cpuProf: z.boolean(),
  record: z.boolean(),
  adminToken: z.string().min(1).optional(),
});

export type BenchOptions = z.infer<typeof optionsSchema>;

const usage = `usage: npm run bench -- <${[...scenarioNames, 'all'].join('|')}> [options]

  --full             full sizes (10,000 line items at full duration, 100M report events, ...);
                     without it, quick sizes that let \`all\` finish in under 10 minutes
  --duration <s>     seconds of load per measured run (serve, track)
  --connections <n>  concurrent keep-alive connections of the load generator
  --line-items <n>   serve: active line items (default 10,000), to size for your own catalog
  --semantic-share <s>  serve-semantic: share of the line items opted into semantic matching (default 1);
                     serve: that share of the heap service's line items opted in (default none)
  --semantic-bodies <b>  serve-semantic: mixed (default: half serve bodies, half evaluation conversations),
                     serve (only the serve scenario's bodies: both services fill equally) or evaluation
  --events <n>       report: raw events to generate (default 5M, 100M with --full)
  --keep-data <dir>  report: keep the generated DATA_DIR in <dir>, and reuse it when a run with
                     the same number of events left it there (skips the generation)
  --through-today    report, with --keep-data: first add the days after the kept data's last day
                     up to today (1/92 of its events a day, through events_v1's views), so the
                     window ends today and today's users are merged; writes into <dir>: use a copy
  --past-window      report: the 92-day window ends the day before the data's last day, so every
                     day of it is past and reach is read from the kept states (no users of today)
  --url <url>        measure a service that is already running on this machine instead of
                     starting one; it is seeded through its admin and management APIs
                     (needs --admin-token, and TRACKING_SECRET in the environment for track)
  --admin-token <t>  the admin token of the service given by --url
  --cpu-prof         write a V8 CPU profile of the service and print its top self-time functions
  --record           also write the table into bench/README.md (replacing the previous one)`;

export function parseBenchOptions(argv: string[]): BenchOptions {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      full: { type: 'boolean', default: false },
      duration: { type: 'string' },
      connections: { type: 'string' },
      'line-items': { type: 'string' },
      'semantic-share': { type: 'string' },
      'semantic-bodies': { type: 'string' },
      events: { type: 'string' },
      'keep-data': { type: 'string' },
      'through-today': { type: 'boolean', default: false },
      'past-window': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      record: { type: 'boolean', default: false },
      'admin-token': { type: 'string' },
    },
  });
  const parsed = optionsSchema.safeParse({
    scenario: positionals[0],
    url: values.url,
    full: values.full,
    duration: values.duration,
    connections: values.connections,
    lineItems: values['line-items'],
    semanticShare: values['semantic-share'],
    semanticBodies: values['semantic-bodies'],
    events: values.events,
    keepData: values['keep-data'],
    throughToday: values['through-today'],
    pastWindow: values['past-window'],
    cpuProf: values['cpu-prof'],
    record: values.record,
    adminToken: values['admin-token'],
  });
  if (!parsed.success) {
    throw new Error(`${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}\n\n${usage}`);
  }
  return parsed.data;
}

/** The same options as command-line flags, without the scenario (for `all`, which runs each scenario as a child). */
export function optionsAsFlags(options: BenchOptions): string[] {
  return [
    ...(options.url ? ['--url', options.url] : []),
    ...(options.full ? ['--full'] : []),
    ...(options.duration ? ['--duration', String(options.duration)] : []),
    ...(options.connections ? ['--connections', String(options.connections)] : []),
    ...(options.lineItems ? ['--line-items', String(options.lineItems)] : []),
    ...(options.semanticShare !== undefined ? ['--semantic-share', String(options.semanticShare)] : []),
    ...(options.semanticBodies !== undefined ? ['--semantic-bodies', options.semanticBodies] : []),
    ...(options.events ? ['--events', String(options.events)] : []),
    ...(options.keepData ? ['--keep-data', options.keepData] : []),
    ...(options.throughToday ? ['--through-today'] : []),
    ...(options.pastWindow ? ['--past-window'] : []),
    ...(options.cpuProf ? ['--cpu-prof'] : []),
    ...(options.record ? ['--record'] : []),
    ...(options.adminToken ? ['--admin-token', options.adminToken] : []),
  ];
}
