// Fails when product files (src/ and the console's web/) import each other in a loop (type-only imports count: they tie
// the files' meaning together just the same). Reads the import graph with TypeScript's own module
// resolution, so it agrees with the compiler about which file an import names.
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const productDirs = ['src', 'web'].map((dir) => path.join(root, dir) + path.sep);
const isProduct = (file: string): boolean => productDirs.some((dir) => file.startsWith(dir));
const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const files = parsed.fileNames.filter((file) => isProduct(path.resolve(file)));

const imports = new Map<string, string[]>();
for (const file of files) {
  const info = ts.preProcessFile(ts.sys.readFile(file) ?? '', true, true);
  const targets = info.importedFiles.flatMap(({ fileName }) => {
    const resolved = ts.resolveModuleName(fileName, file, parsed.options, ts.sys).resolvedModule;
    const target = resolved && path.resolve(resolved.resolvedFileName);
    return target && isProduct(target) && !resolved.isExternalLibraryImport ? [target] : [];
  });
  imports.set(path.resolve(file), targets);
}

// Tarjan's strongly connected components: every component of more than one file is a circle.
const index = new Map<string, number>();
const lowLink = new Map<string, number>();
const stack: string[] = [];
const onStack = new Set<string>();
const circles: string[][] = [];
const visit = (file: string): void => {
  index.set(file, index.size);
  lowLink.set(file, index.get(file)!);
  stack.push(file);
  onStack.add(file);
  for (const target of imports.get(file) ?? []) {
    if (!index.has(target)) {
      visit(target);
      lowLink.set(file, Math.min(lowLink.get(file)!, lowLink.get(target)!));
    } else if (onStack.has(target)) {
      lowLink.set(file, Math.min(lowLink.get(file)!, index.get(target)!));
    }
  }
  if (lowLink.get(file) !== index.get(file)) return;
  const component: string[] = [];
  let member: string;
  do {
    member = stack.pop()!;
    onStack.delete(member);
    component.push(path.relative(root, member));
  } while (member !== file);
  if (component.length > 1 || imports.get(file)?.includes(file)) circles.push(component.sort());
};
for (const file of imports.keys()) if (!index.has(file)) visit(file);

if (circles.length > 0) {
  for (const circle of circles) console.error(`import circle: ${circle.join(' <-> ')}`);
  process.exit(1);
}
console.log(`no import circle among ${imports.size} files in src/ and web/`);
