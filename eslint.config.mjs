// Type-checked linting: floating promises and misused promises are the bugs that lose Kafka
// offsets or swallow vendor failures, so they are errors, not warnings.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import jest from 'eslint-plugin-jest';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'packages/*/dist/**',
      'coverage/**',
      'node_modules/**',
      '.cache/**',
      'test-output/**',
      '*.mjs',
      '*.js',
      '*.cjs',
      'scripts/**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Small enough to read in one sitting: a file that grows past these is split by job.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    ...jest.configs['flat/recommended'],
    rules: {
      ...jest.configs['flat/recommended'].rules,
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
      // describe(SomeClass.name) keeps spec titles in step with renames.
      'jest/valid-title': ['error', { ignoreTypeOfDescribeName: true }],
      // A scenario shared by several tests lives in a helper named expect…, which asserts.
      'jest/expect-expect': ['warn', { assertFunctionNames: ['expect', 'expect*'] }],
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  prettier,
);
