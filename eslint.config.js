// Lint rules for every TypeScript file in the repo. Type-checked rules matter most in code this asynchronous:
// a floating or misused promise is a lost error. Formatting is prettier's job (`npm run format`), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
      'vitest.config.ts',
      '**/vitest.config.ts',
      '**/vitest.pack.config.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // `reject(x)` is judged like `throw x` (only-throw-error allows any and unknown by default): passing on an
      // AbortSignal's reason (typed any) or a caught unknown unchanged is the abort contract — callers compare
      // `err === signal.reason`. Literals and non-Error objects are still refused.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // A `let` read by a closure before its one assignment (a server handler set up before the object it calls)
      // must stay `let`: as `const` at the assignment, an early call would hit the temporal dead zone.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests read API server answers as untyped JSON on purpose (asserting the wire shape, not our types), so the
    // any-flow rules stay in source files only; the promise rules apply to tests too.
    files: [
      '**/*.test.ts',
      '**/*.test-util.ts',
      '**/testing/**/*.ts',
      'packages/envtest/src/conformance/**/*.ts',
      'tools/pack-test/src/**/*.ts',
    ],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Test reconcilers and fakes implement Promise-returning interfaces with synchronous bodies, written
      // `async (req) => { seen.push(req) }` as users write them; `async` also makes a throw in a fake a rejection, as
      // in the real implementation. Source files keep the rule. (A forgotten await is no-floating-promises' job.)
      '@typescript-eslint/require-await': 'off',
    },
  },
);
