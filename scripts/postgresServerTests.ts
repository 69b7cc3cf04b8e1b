// Prints the test files whose run can differ on a PostgreSQL server: those that read the test
// database URL (ADSVC_TEST_DATABASE_URL, or testDatabaseUrl from test/helpers/testApp.ts) themselves
// or through the test files they import. .ci/run runs the whole suite on the embedded engines and
// then only these again on its PostgreSQL server: the others do exactly the same in both runs, and
// the second run of them cost CI about a third of its time. Reads imports with TypeScript's own
// module resolution, as importCircles.ts does.
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const testDir = path.join(root, 'test') + path.sep;
const readsDatabaseUrl = /\btestDatabaseUrl\b|\bADSVC_TEST_DATABASE_URL\b/;
const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const testFiles = parsed.fileNames.map((file) => path.resolve(file)).filter((file) => file.startsWith(testDir));

const imports = new Map<string, string[]>();
const readsItself = new Set<string>();
for (const file of testFiles) {
  const text = ts.sys.readFile(file) ?? '';
  if (readsDatabaseUrl.test(text)) readsItself.add(file);
  imports.set(
    file,
    ts.preProcessFile(text, true, true).importedFiles.flatMap(({ fileName }) => {
      const resolved = ts.resolveModuleName(fileName, file, parsed.options, ts.sys).resolvedModule;
      const target = resolved && path.resolve(resolved.resolvedFileName);
      return target && target.startsWith(testDir) && !resolved.isExternalLibraryImport ? [target] : [];
    }),
  );
}

const known = new Map<string, boolean>();
const reaches = (file: string, visiting: Set<string>): boolean => {
  const answer = known.get(file);
  if (answer !== undefined) return answer;
  if (visiting.has(file)) return false;
  visiting.add(file);
  const result = readsItself.has(file) || (imports.get(file) ?? []).some((target) => reaches(target, visiting));
  known.set(file, result);
  return result;
};

const selected = testFiles.filter((file) => file.endsWith('.test.ts') && reaches(file, new Set())).map((file) => path.relative(root, file));
if (selected.length === 0) throw new Error('no test file reads the test database URL: is test/helpers/testApp.ts renamed?');
console.log(selected.sort().join('\n'));
