/**
 * Plain-JavaScript copy of a TypeScript module tree (the entry and every relative import it reaches),
 * so that a cold-start measurement runs `node` on JavaScript, as the deployed function does, instead
 * of paying for an on-the-fly TypeScript loader.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const REPO = resolve(import.meta.dirname, '..');
/** Relative imports of a module: `from './x.js'`, and dynamic ones, `import('./x.js')` (adapters loaded on use). */
const RELATIVE_IMPORT = /(?:\bfrom\s+|\bimport\(\s*)['"](\.{1,2}\/[^'"]+)\.js['"]/g;

/**
 * Transpile `entry` (a `.ts` file in the repository) and its relative imports into `outDir`, keeping
 * paths relative to the repository root; an import with no `.ts` source is a `.js` module, copied as it is. Returns the absolute path of the entry's `.js` file.
 */
export function transpileTree(entry: string, outDir: string): string {
  const seen = new Set<string>();
  const queue = [resolve(entry)];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(RELATIVE_IMPORT)) {
      // a `.ts` source, or a module that is JavaScript already (generated code)
      const base = resolve(dirname(file), m[1] as string);
      queue.push(existsSync(`${base}.ts`) ? `${base}.ts` : `${base}.js`);
    }
    if (file.endsWith('.js')) {
      const target = join(outDir, relative(REPO, file));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, source);
      continue;
    }
    const js = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    }).outputText;
    const target = join(outDir, relative(REPO, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, js);
  }
  return join(outDir, relative(REPO, resolve(entry))).replace(/\.ts$/, '.js');
}
