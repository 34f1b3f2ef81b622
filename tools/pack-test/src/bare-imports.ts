/**
 * Which packages a shipped file needs at run time or type-check time: the bare specifiers of its static and dynamic
 * imports, re-exports, `require` calls and `/// <reference types>`. TypeScript's pre-processor reads them, so
 * examples inside comments and strings do not count.
 */
import { builtinModules } from 'node:module';
import ts from 'typescript';

const builtins = new Set(builtinModules);

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`; relative, absolute and Node built-ins → undefined. */
export function packageNameOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#')) return undefined;
  if (specifier.startsWith('node:') || builtins.has(specifier) || builtins.has(specifier.split('/')[0] ?? '')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The packages `source` (JavaScript or a declaration file) imports, deduplicated. */
export function importedPackages(source: string): string[] {
  const info = ts.preProcessFile(source, true, true);
  const specifiers = [...info.importedFiles, ...info.typeReferenceDirectives].map((f) => f.fileName);
  const names = new Set<string>();
  for (const s of specifiers) {
    const name = packageNameOf(s);
    if (name) names.add(name);
  }
  return [...names].sort();
}
