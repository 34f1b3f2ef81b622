/**
 * Shell-style globs for kubeconfig paths (chokidar 4+ no longer expands globs, and Node 20's `path.matchesGlob` is
 * experimental). Supports `*` and `?` within a path segment, `**` across segments, `[abc]`/`[a-z]`/`[!x]` classes and
 * `{a,b}` alternatives. As in shells, wildcards do not match a leading `.` of a segment.
 */

const GLOB_CHARS = /[*?[\]{}]/;

/** True if `pattern` contains glob syntax. */
export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/** Splits an absolute glob into the deepest directory without glob syntax and the pattern's segments below it. */
export function globBase(pattern: string): { base: string; segments: string[] } {
  const parts = pattern.split('/');
  const firstGlob = parts.findIndex((p) => isGlob(p));
  const baseParts = firstGlob === -1 ? parts.slice(0, -1) : parts.slice(0, firstGlob);
  const base = baseParts.join('/') || '/';
  return { base, segments: parts.slice(baseParts.length) };
}

/** Compiles an absolute glob into a RegExp over absolute paths. Throws on unbalanced brackets or braces. */
export function globToRegExp(pattern: string): RegExp {
  let out = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const atSegmentStart = i === 0 || pattern[i - 1] === '/';
    const noDot = atSegmentStart ? '(?!\\.)' : '';
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        const wholeSegment = atSegmentStart && (pattern[i + 2] === '/' || i + 2 === pattern.length);
        if (wholeSegment) {
          // `**/` matches zero or more directories that do not start with a dot.
          if (pattern[i + 2] === '/') {
            out += '(?:(?!\\.)[^/]*/)*';
            i += 2;
          } else {
            out += '(?:(?!\\.)[^/]*(?:/(?!\\.)[^/]*)*)?';
            i += 1;
          }
          continue;
        }
        i += 1; // `**` inside a segment acts as `*`
      }
      out += `${noDot}[^/]*`;
    } else if (c === '?') {
      out += `${noDot}[^/]`;
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) throw new SyntaxError(`unbalanced "[" in glob ${JSON.stringify(pattern)}`);
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `${noDot}[${negate ? '^/' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) {
      out += '|';
    } else {
      out += c.replace(/[.+^$()|\\/{}]/g, '\\$&');
    }
  }
  if (braces !== 0) throw new SyntaxError(`unbalanced "{" in glob ${JSON.stringify(pattern)}`);
  return new RegExp(`^${out}$`);
}
