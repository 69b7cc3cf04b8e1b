import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';

// The docs link to each other's sections (`](serving.md#budgets-and-pacing)`, `](#click-velocity)`).
// GitHub makes an anchor of every heading and of nothing else (a bold paragraph gets none), so a
// link to a section that is not a heading, or to one since renamed, opens the top of the page.

/** README.md, and every Markdown file under docs/ and bench/. */
function markdownFiles(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(path.join(packageRoot, dir), { withFileTypes: true }).flatMap((entry) => {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) return under(relative);
      return entry.name.endsWith('.md') ? [relative] : [];
    });
  return ['README.md', ...under('docs'), ...under('bench')];
}

/** The anchor GitHub gives a heading: its text without markup, lower-cased, punctuation dropped, each space a hyphen. */
function headingSlug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a Markdown file: one per heading outside code blocks (a repeated one gets -1, -2…), and each `<a id>`/`<a name>`. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inCode = !inCode;
    const heading = inCode ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = headingSlug(heading[1]!);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const html of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(html[1]!);
  }
  return anchors;
}

interface DocLink {
  from: string;
  target: string;
  anchor: string | undefined;
}

/**
 * The links of a file to a Markdown file or, in a Markdown file, to a section of its own:
 * `](file.md)`, `](file.md#anchor)`, `](#anchor)`. Addresses with a scheme (https:) are not ours to check.
 */
function markdownLinks(file: string): DocLink[] {
  // Code (a fenced block, a `span`) shows link syntax without linking.
  const text = readFileSync(path.join(packageRoot, file), 'utf8').replace(/^```[^]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  const ownSections = file.endsWith('.md');
  return [...text.matchAll(/\]\(([^()\s#]*\.md|)(?:#([^()\s]+))?\)/g)]
    .filter(([, target, anchor]) => (target === '' ? ownSections && anchor !== undefined : !/^[a-z]+:/.test(target!)))
    .map(([, target, anchor]) => ({ from: file, target: target === '' ? file : path.join(path.dirname(file), target!), anchor }));
}

describe('links between the docs', () => {
  const links = [...markdownFiles(), 'openapi.yaml'].flatMap(markdownLinks);

  it('finds the links (the check reads what it should)', () => {
    expect(links.filter((link) => link.anchor !== undefined).length).toBeGreaterThan(50);
  });

  it('each link to a Markdown file names one that exists', () => {
    const missing = links.filter((link) => !existsSync(path.join(packageRoot, link.target)));
    expect(missing.map((link) => `${link.from} → ${link.target}`)).toEqual([]);
  });

  it('each link to a section names a heading of the file it links to, as GitHub makes its anchor', () => {
    const anchors = new Map<string, Set<string>>();
    const anchorsIn = (file: string) => {
      if (!anchors.has(file)) anchors.set(file, anchorsOf(readFileSync(path.join(packageRoot, file), 'utf8')));
      return anchors.get(file)!;
    };
    const broken = links.filter((link) => link.anchor !== undefined && existsSync(path.join(packageRoot, link.target)) && !anchorsIn(link.target).has(link.anchor));
    expect(broken.map((link) => `${link.from} → ${link.target}#${link.anchor}`)).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    expect(headingSlug('Kill -9 during a conversion written at once')).toBe('kill--9-during-a-conversion-written-at-once');
    expect(headingSlug('Importing events: `POST /v1/admin/events/import`')).toBe('importing-events-post-v1admineventsimport');
    expect(headingSlug('What `CLICKHOUSE_CLUSTER` creates')).toBe('what-clickhouse_cluster-creates');
    expect([...anchorsOf('## Limits\n```\n# not a heading\n```\n## Limits\n')]).toEqual(['limits', 'limits-1']);
  });
});
