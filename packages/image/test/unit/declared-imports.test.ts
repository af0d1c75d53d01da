// The repo's lint refuses an import of a package the importing workspace does not declare: in the
// monorepo it resolves anyway (npm hoists every workspace's dependencies), in the image it does not.
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './repo-root.ts';

// The rule under test needs no type information; the snippets are not files the TypeScript project knows.
const eslint = new ESLint({ cwd: repoRoot, overrideConfig: [tseslint.configs.disableTypeChecked] });

async function importProblems(code: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${repoRoot}/${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'import-x/no-extraneous-dependencies').map((m) => m.message);
}

describe('lint: declared imports', () => {
  it('refuses a workspace package the importing package does not declare', async () => {
    // The controller-manager's image lacked transition-rule this way.
    expect(await importProblems("export { localClusterName } from '@cloneset-suite/local-cluster';\n", 'packages/api-types/src/probe.ts')).toEqual([
      expect.stringContaining("'@cloneset-suite/local-cluster' should be listed in the project's dependencies"),
    ]);
  });

  it('refuses a third-party package only another workspace declares', async () => {
    expect(await importProblems("export { default } from 'fastify';\n", 'packages/podopslifecycle/src/probe.ts')).toEqual([
      expect.stringContaining("'fastify' should be listed in the project's dependencies"),
    ]);
  });

  it('refuses a type-only import too: typechecking a workspace alone needs it', async () => {
    expect(await importProblems("export type { FastifyInstance } from 'fastify';\n", 'packages/podopslifecycle/src/probe.ts')).toHaveLength(1);
  });

  it('refuses a devDependency in sources, which the image does not install', async () => {
    expect(await importProblems("export { describe } from 'vitest';\n", 'packages/kube-runtime/src/probe.ts')).toEqual([
      expect.stringContaining("'vitest' should be listed in the project's dependencies, not devDependencies"),
    ]);
  });

  it('accepts declared dependencies in sources, and devDependencies (its own or the root tooling) in tests', async () => {
    expect(await importProblems("export { kubectl } from '@cloneset-suite/local-cluster';\nexport { describe } from 'vitest';\n", 'packages/kube-runtime/test/unit/probe.test.ts')).toEqual([]);
    expect(await importProblems("export { Type } from 'typebox';\n", 'packages/api-types/src/probe.ts')).toEqual([]);
  });
});
