// One lint setup for the whole monorepo: typescript-eslint with type information.
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const root = import.meta.dirname;
const workspaceDirs = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).workspaces.flatMap((pattern) =>
  globSync(pattern, { cwd: root }).filter((dir) => globSync(path.join(dir, 'package.json'), { cwd: root }).length > 0),
);

/**
 * An import of a package its package.json does not declare works in the monorepo (npm hoists every
 * workspace's dependencies into the root node_modules) and fails in the image, which installs only
 * what the controller-manager's dependency graph declares. Sources (src/) may import only their own
 * dependencies; tests, scripts and configs may also use devDependencies, their own or the root's.
 * includeInternal: workspace packages resolve through symlinks to paths outside node_modules.
 */
// e2e and bench are test suites through and through: nothing of theirs ships.
const testOnlyWorkspaces = new Set(['e2e', 'bench']);
// The local development start (npm start) runs from the checkout, beside the local cluster it brings up.
const devOnlySources = ['apps/controller-manager/src/dev-start.ts', 'apps/controller-manager/src/dev-ring/**'];
const devDependencyGlobs = (dir) =>
  testOnlyWorkspaces.has(dir)
    ? true
    : [`${dir}/test/**`, `${dir}/scripts/**`, `${dir}/**/*.test.ts`, `${dir}/*.ts`, `${dir}/*.js`, ...devOnlySources.filter((f) => f.startsWith(`${dir}/`))].map(
        (glob) => path.join(root, glob),
      );
const declaredImports = (dir) => ({
  files: [`${dir}/**/*.ts`, `${dir}/**/*.js`],
  rules: {
    'import-x/no-extraneous-dependencies': [
      'error',
      {
        packageDir: [path.join(root, dir), root],
        devDependencies: devDependencyGlobs(dir),
        optionalDependencies: false,
        peerDependencies: false,
        includeInternal: true,
        includeTypes: true,
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/.turbo/**', 'crds/**', 'deploy/**', '.cluster/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver()] },
  },
  ...workspaceDirs.map(declaredImports),
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Tests poke at loosely-typed API responses; keep the safety rules that catch real bugs.
    files: ['**/test/**/*.ts', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
