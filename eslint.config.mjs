// ESLint over src, tests, web, scripts and bench (npm run lint), type-aware through typescript-eslint's
// project service: each file is checked against its nearest tsconfig.json (the root one, or web/tsconfig.json).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', '.data/**', 'web/src/api.generated.ts'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A leading underscore marks a parameter a signature needs, and `{ dropped: _x, ...rest }` omits a field on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // An async method that implements a Promise-returning port or SDK callback keeps `async` so a throw becomes a rejection.
      '@typescript-eslint/require-await': 'off',
      // Text validation and canonical JSON match control characters on purpose.
      'no-control-regex': 'off',
      // String(value) on an untrusted JSON value is a deliberate coercion; restrict-template-expressions keeps objects out of templates.
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    // Plain ESM scripts (the test authorization server runs oidc-provider, which is ESM-only) are outside every tsconfig.
    files: ['**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', fetch: 'readonly' } },
  },
  {
    files: ['tests/**'],
    rules: {
      // Tests read supertest bodies and parsed JSON, which are `any`, and assert their shape with expect.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Record<string, any> reads a JSON answer as loosely as supertest's body does.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  prettier,
);
