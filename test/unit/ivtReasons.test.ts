import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ivtReasons } from '../../src/ivt/ivtReasons.js';
import { contract } from '../helpers/contract.js';

// The contract and the tracking docs restate the one list of reasons; a reason added, renamed or
// dropped in code without them (or the other way round) fails here.
const reasons = Object.keys(ivtReasons);

describe('ivt reasons', () => {
  it('are the enum of the IvtReason schema in openapi.yaml, in the order they are checked', () => {
    const schema = (contract.components.schemas as Record<string, { enum?: string[]; description?: string }>).IvtReason;
    expect(schema?.enum).toEqual(reasons);
    for (const reason of reasons) expect(schema?.description).toContain(`- ${reason}: `);
  });

  it('each have a row in the table of docs/tracking.md', () => {
    const docs = readFileSync(path.join(import.meta.dirname, '../../docs/tracking.md'), 'utf8');
    const rows = [...docs.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]);
    expect(rows).toEqual(reasons);
  });
});
