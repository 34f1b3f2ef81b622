/**
 * The project files around the code: package.json (the library pinned to the versions released with this
 * scaffolder), the TypeScript and vitest settings, the ignore files, the Dockerfile and the README.
 */
import type { ProviderChoice } from '../providers.js';
import { nodeTypesRange, toolVersions, versionOf, type PinnedVersions } from '../versions.js';

/** What a project is rendered from: its name, its provider, the pinned versions and whether Node 20 needs the undici override. */
export interface ProjectSettings {
  name: string;
  provider: ProviderChoice;
  versions: PinnedVersions;
  /** Add the undici override client-node 2.x needs on Node 20 (see the library's README). */
  undiciOverride: boolean;
}

const json = (value: unknown): string => JSON.stringify(value, null, 2) + '\n';

export function packageJson({ name, provider, versions, undiciOverride }: ProjectSettings): string {
  const pin = (pkg: string) => [pkg, versionOf(versions, pkg)] as const;
  return json({
    name,
    version: '0.1.0',
    private: true,
    description: `A multi-cluster Kubernetes controller on multicluster-runtime and ${provider.package}.`,
    type: 'module',
    engines: { node: '>=20.19.0' },
    scripts: {
      build: 'tsc -p tsconfig.build.json',
      typecheck: 'tsc -p tsconfig.json',
      start: 'node dist/main.js',
      test: 'vitest run',
    },
    dependencies: Object.fromEntries([pin('@kubernetes/client-node'), pin('@multicluster-runtime/core'), pin(provider.package)].sort()),
    devDependencies: {
      '@multicluster-runtime/envtest': versionOf(versions, '@multicluster-runtime/envtest'),
      '@types/node': nodeTypesRange(),
      typescript: toolVersions.typescript,
      vitest: toolVersions.vitest,
    },
    ...(undiciOverride ? { overrides: { undici: '^7' } } : {}),
  });
}

export function tsconfigJson(): string {
  return json({
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      types: ['node'],
      skipLibCheck: true,
      noEmit: true,
    },
    include: ['src/**/*.ts', 'vitest.config.ts'],
  });
}

export function tsconfigBuildJson(): string {
  return json({
    extends: './tsconfig.json',
    compilerOptions: { noEmit: false, rootDir: 'src', outDir: 'dist', sourceMap: true },
    include: ['src/**/*.ts'],
    exclude: ['src/**/*.test.ts'],
  });
}

export function vitestConfigTs(): string {
  return `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Tests start API servers and wait for reconciles: generous limits keep them steady on a busy machine.
    testTimeout: 30_000,
    expect: { poll: { timeout: 10_000 } },
  },
});
`;
}

/** The formatting the templates are written in, for the user's editor and prettier. */
export const prettierrc = json({ printWidth: 120, singleQuote: true, trailingComma: 'all' });

export const gitignore = 'node_modules/\ndist/\n*.kubeconfig\n';
export const dockerignore = 'node_modules\ndist\n.git\n*.kubeconfig\n';

export function dockerfile(): string {
  return `# Build: npm install (once, to write package-lock.json), then docker build -t <image> .
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Credential plugins your kubeconfigs or access files name go here too (COPY them in, or install them).
USER node
ENTRYPOINT ["node", "dist/main.js"]
`;
}

export function readme({ name, provider }: ProjectSettings): string {
  return `# ${name}

A multi-cluster Kubernetes controller on [multicluster-runtime](https://www.npmjs.com/package/@multicluster-runtime/core),
following ${provider.summary}.

| command | what it does |
| --- | --- |
| \`npm test\` | the sample controller against in-memory API servers (no cluster needed) |
| \`npm run build\` | compiles \`src/\` into \`dist/\` |
| \`npm start\` | runs the controller with your current kubeconfig context as the host |
| \`kubectl apply -f deploy/\` | installs it in the host cluster (build and push the image first, then set it in \`deploy/20-deployment.yaml\`) |

## The fleet

${provider.readme}

## The sample controller

\`src/controller.ts\`: in every member, each ConfigMap labelled \`${name}.example.com/reply: "true"\` gets a reply
ConfigMap \`<name>-reply\` beside it, owned by it, with an Event on the source; a finalizer deletes the reply when the
source is deleted. \`deploy/member/\` holds the RBAC it needs in each member (apply it there; it names the
ServiceAccount \`${name}-member\` whose token your member kubeconfigs can carry).

## Settings

| variable | default | what it sets |
| --- | --- | --- |
| \`POD_NAMESPACE\` | \`default\` | the namespace of the leader-election Lease (the Deployment sets it to its own) |
| \`LEADER_ELECT\` | \`true\` | \`false\` runs without leader election |
| \`METRICS_BIND_ADDRESS\` | \`:8080\` | Prometheus metrics at \`/metrics\` |
| \`HEALTH_PROBE_BIND_ADDRESS\` | \`:8081\` | \`/healthz\` and \`/readyz\` |

The provider's own settings are in "The fleet" above and in \`src/main.ts\`.
`;
}
