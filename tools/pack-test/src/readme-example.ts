/** The runnable example of a package README: its first TypeScript code block. */
import { readFileSync } from 'node:fs';

export class NoReadmeExampleError extends Error {
  override readonly name = 'NoReadmeExampleError';
  constructor(readonly path: string) {
    super(`${path} has no \`\`\`ts code block; a package README starts with a runnable example`);
  }
}

export function readmeExample(readmePath: string): string {
  const match = /^```(?:ts|typescript)\n([\s\S]*?)^```/m.exec(readFileSync(readmePath, 'utf8'));
  if (!match?.[1]) throw new NoReadmeExampleError(readmePath);
  return match[1];
}
