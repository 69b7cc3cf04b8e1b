import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { unbilledReasons } from '../../src/tracking/unbilledReasons.js';
import { packageRoot } from '../../src/packageRoot.js';

const names = Object.keys(unbilledReasons);

describe('every reason a valid event goes unbilled is documented with what triggers it', () => {
  it('docs/tracking.md has one row for each reason, in the order they are checked, each saying when', () => {
    const docs = readFileSync(path.join(packageRoot, 'docs', 'tracking.md'), 'utf8');
    const table = docs.slice(docs.indexOf('| unbilled | when |')).split('\n\n')[0]!;
    const rows = [...table.matchAll(/^\| `([a-z_]+)` \| (.+) \|$/gm)];
    expect(rows.map(([, name]) => name)).toEqual(names);
    for (const [, name, trigger] of rows) expect(trigger!.length, name).toBeGreaterThan(20);
  });

  it('openapi.yaml lists exactly these reasons in UnbilledReason, each with its trigger in the description', () => {
    const spec = parse(readFileSync(path.join(packageRoot, 'openapi.yaml'), 'utf8'));
    const schema = spec.components.schemas.UnbilledReason as { enum: string[]; description: string };
    expect(schema.enum).toEqual(names);
    for (const name of names) expect(schema.description, name).toMatch(new RegExp(`^${name}: .+`, 'm'));
  });
});
