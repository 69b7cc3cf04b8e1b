import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildCountryTables, countryTables } from '../../src/geo/countryOfAddress.js';
import { readCidrFiles } from '../../src/ivt/cidrFiles.js';
import { asnRanges, loadNetworkTables } from '../../src/ivt/networkTables.js';
import { stampedAfter } from '../../src/fileStamp.js';
import { loadPrebuiltTables, writePrebuiltTables, type PrebuiltTables } from '../../src/ivt/prebuiltTables.js';
import { RangeTable, RangeTableBuilder, type RangeTableParts } from '../../src/ivt/rangeTable.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

/** A table's every byte: its key width, labels in order, and its three arrays. */
function bytesOf(table: RangeTable): string {
  const { words, labels, starts, ends, labelIndexes } = table.parts();
  const hex = (array: Uint32Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('hex');
  return `${words}|${JSON.stringify(labels)}|${hex(starts)}|${hex(ends)}|${hex(labelIndexes)}`;
}

/** The same tables, their file put in a directory of the test's own. */
function inDirectory<Tables>(tables: PrebuiltTables<Tables>, directory: string): PrebuiltTables<Tables> {
  return { ...tables, file: pathToFileURL(path.join(directory, path.basename(tables.file.pathname))) };
}

describe('prebuilt range tables (npm run build writes them, a start reads them)', () => {
  it('reads the country tables back from their file byte for byte as the CSV files build them', () => {
    const tables = inDirectory(countryTables, tempDirectory('country-tables-'));
    expect(writePrebuiltTables(tables)).toBe(true);
    expect(writePrebuiltTables(tables)).toBe(false);
    const why: string[] = [];
    const read = loadPrebuiltTables(tables, (reason) => why.push(reason));
    expect(why).toEqual([]);
    const built = buildCountryTables();
    expect(read.ipv4.size).toBeGreaterThan(100_000);
    expect(bytesOf(read.ipv4)).toBe(bytesOf(built.ipv4));
    expect(bytesOf(read.ipv6)).toBe(bytesOf(built.ipv6));
  });

  it('builds the network tables from the ASN ranges of their file and the CIDR files byte for byte as from the CSV files', () => {
    const tables = inDirectory(asnRanges, tempDirectory('asn-ranges-'));
    writePrebuiltTables(tables);
    // A feed overlapping AWS's ranges and one of its own, as `npm run ivt:update` and an operator write them.
    const dataDir = tempDirectory('ivt-feeds-');
    mkdirSync(path.join(dataDir, 'ivt'));
    writeFileSync(path.join(dataDir, 'ivt', 'aws.cidr'), '3.5.140.0/22\n81.2.69.0/24\n2600:1f18::/33\n');
    const extra = path.join(dataDir, 'office-vpn.cidr');
    writeFileSync(extra, '81.2.70.7\n2a02:908:abcd::/48\n');
    const why: string[] = [];
    const { datacenter, relay } = loadPrebuiltTables(tables, (reason) => why.push(reason));
    expect(why).toEqual([]);
    for (const file of readCidrFiles(dataDir, [extra])) {
      for (const range of file.ranges) datacenter[range.family].add(range.start, range.end, file.label);
    }
    // From the TypeScript sources there is no dist/network-ranges.bin: this one scans the CSV files.
    const fromCsv = loadNetworkTables(dataDir, [extra]);
    expect(bytesOf(datacenter.ipv4.build())).toBe(bytesOf(fromCsv.datacenter.ipv4));
    expect(bytesOf(datacenter.ipv6.build())).toBe(bytesOf(fromCsv.datacenter.ipv6));
    expect(bytesOf(relay.ipv4.build())).toBe(bytesOf(fromCsv.relay.ipv4));
    expect(bytesOf(relay.ipv6.build())).toBe(bytesOf(fromCsv.relay.ipv6));
    expect(fromCsv.datacenter.ipv4.find(0x51024507)).toBe('aws.cidr');
  });

  describe('a file that is not current is not read: the tables are built from their sources, and the caller told why', () => {
    // Tables of one row `start,end,label` a line of a source file, built by the code in a folder of its own.
    function smallTables() {
      const directory = tempDirectory('prebuilt-');
      const source = path.join(directory, 'ranges.csv');
      const code = path.join(directory, 'code');
      mkdirSync(code);
      writeFileSync(source, '10,19,a\n20,29,b\n');
      writeFileSync(path.join(code, 'builder.js'), '// version 1\n');
      const tables: PrebuiltTables<RangeTable> = {
        name: 'the test tables',
        file: pathToFileURL(path.join(directory, 'tables.bin')),
        sources: [source],
        code: [pathToFileURL(`${code}/`)],
        build: () => {
          const builder = new RangeTableBuilder(1);
          for (const line of readFileSync(source, 'utf8').trim().split('\n')) {
            const [start, end, label] = line.split(',');
            builder.addNumbers(Number(start), Number(end), label!);
          }
          return builder.build();
        },
        stored: (table) => table.parts(),
        fromStored: (stored) => RangeTable.fromParts(stored as RangeTableParts),
      };
      const load = () => {
        const why: string[] = [];
        return { table: loadPrebuiltTables(tables, (reason) => why.push(reason)), why };
      };
      return { tables, source, code, load };
    }

    it('reads a current file', () => {
      const { tables, load } = smallTables();
      writePrebuiltTables(tables);
      const { table, why } = load();
      expect(why).toEqual([]);
      expect([15, 25, 30].map((key) => table.find(key))).toEqual(['a', 'b', undefined]);
    });

    it('builds from a source changed since the file was written (an updated package), so the change takes effect', () => {
      const { tables, source, load } = smallTables();
      writePrebuiltTables(tables);
      writeFileSync(source, '10,19,a\n20,29,c\n');
      const { table, why } = load();
      expect(why).toEqual([expect.stringMatching(/^the test tables built from their CSV files: .*tables\.bin is stale/)]);
      expect(table.find(25)).toBe('c');
    });

    describe('the files\' stamp (their size, times and inode when the file was built), which spares a start hashing the sources', () => {
      // The test's files are written just before the build: stamped however recent, unlike npm run build's.
      beforeEach(() => {
        stampedAfter.ms = -Infinity;
      });
      afterEach(() => {
        stampedAfter.ms = 2_000;
      });

      /** The file with its key (the sources' sha256) replaced by zeros: only the stamp can say it is current. */
      function withoutKey(file: string): void {
        const bytes = readFileSync(file);
        bytes.fill(0, 8, 40);
        writeFileSync(file, bytes);
      }

      it('reads a file whose files have its stamp without its key', () => {
        const { tables, load } = smallTables();
        writePrebuiltTables(tables);
        withoutKey(tables.file.pathname);
        const { table, why } = load();
        expect(why).toEqual([]);
        expect(table.find(25)).toBe('b');
      });

      it('checks the content when a source was written since, even with the same size, and builds from it', () => {
        const { tables, source, load } = smallTables();
        writePrebuiltTables(tables);
        // The same length, written right after the build: only the times (and the content) tell.
        writeFileSync(source, '10,19,a\n20,29,c\n');
        const { table, why } = load();
        expect(why).toEqual([expect.stringMatching(/is stale/)]);
        expect(table.find(25)).toBe('c');
      });

      it('checks the content when a code file was written since', () => {
        const { tables, code, load } = smallTables();
        writePrebuiltTables(tables);
        withoutKey(tables.file.pathname);
        writeFileSync(path.join(code, 'builder.js'), '// version 1\n');
        expect(load().why).toEqual([expect.stringMatching(/is stale/)]);
      });

      it('reads a file whose sources were written again with the same content by its key, and npm run build stamps it again without building', () => {
        const { tables, source, load } = smallTables();
        writePrebuiltTables(tables);
        writeFileSync(source, readFileSync(source));
        expect(load().why).toEqual([]);
        let built = 0;
        const counted = { ...tables, build: () => (built++, tables.build()) };
        expect(writePrebuiltTables(counted)).toBe(true);
        expect(built).toBe(0);
        withoutKey(tables.file.pathname);
        expect(load().why).toEqual([]);
      });

      it('is not kept for a file changed within stampedAfter of the build, whose times a coarse file system might not move', () => {
        const { tables, load } = smallTables();
        stampedAfter.ms = 60_000;
        writePrebuiltTables(tables);
        withoutKey(tables.file.pathname);
        expect(load().why).toEqual([expect.stringMatching(/is stale/)]);
      });
    });

    it('builds when the code that builds them changed since', () => {
      const { tables, code, load } = smallTables();
      writePrebuiltTables(tables);
      writeFileSync(path.join(code, 'builder.js'), '// version 2\n');
      expect(load().why).toEqual([expect.stringMatching(/is stale/)]);
      expect(writePrebuiltTables(tables)).toBe(true);
      expect(load().why).toEqual([]);
    });

    it('builds when the file is damaged, cut short, or missing', () => {
      const { tables, load } = smallTables();
      writePrebuiltTables(tables);
      const file = tables.file.pathname;
      const good = readFileSync(file);
      const flipped = Buffer.from(good);
      flipped[flipped.length - 3]! ^= 0x01;
      writeFileSync(file, flipped);
      let loaded = load();
      expect(loaded.why).toEqual([expect.stringMatching(/is damaged/)]);
      expect(loaded.table.find(25)).toBe('b');
      writeFileSync(file, good.subarray(0, good.length - 4));
      expect(load().why).toEqual([expect.stringMatching(/is damaged/)]);
      writeFileSync(file, good.subarray(0, 20));
      expect(load().why).toEqual([expect.stringMatching(/is not a tables file/)]);
      writeFileSync(file, '');
      expect(load().why).toEqual([expect.stringMatching(/is not a tables file/)]);
      tables.file = pathToFileURL(`${file}.gone`);
      loaded = load();
      expect(loaded.why).toEqual([expect.stringMatching(/tables\.bin\.gone cannot be read \(ENOENT; npm run build writes it\)/)]);
      expect(loaded.table.find(15)).toBe('a');
    });
  });
});
