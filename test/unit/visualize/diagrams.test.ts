import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diagramsDir, readmePath, renderDiagrams, renderRootReadme } from '../../../scripts/diagrams.js';
import { allMachines } from './machines.js';

describe('docs/diagrams', () => {
  const files = renderDiagrams();

  it('holds exactly what `npm run diagrams` generates now (run it after changing a machine)', () => {
    expect(readdirSync(diagramsDir).sort()).toEqual([...files.keys()].sort());
    for (const [name, text] of files) {
      expect(readFileSync(join(diagramsDir, name), 'utf8'), `docs/diagrams/${name} is stale`).toBe(text);
    }
  });

  it('has a .mmd and a .dot for each of the four machines and embeds each Mermaid diagram in the README', () => {
    const readme = files.get('README.md')!;
    for (const [name] of allMachines) {
      expect(files.has(`${name}.dot`)).toBe(true);
      expect(readme).toContain(`\`\`\`mermaid\n${files.get(`${name}.mmd`)!}\`\`\``);
    }
  });

  it('the repository README shows each machine diagram as `npm run diagrams` generates it', () => {
    const readme = readFileSync(readmePath, 'utf8');
    expect(readme, 'README.md diagrams are stale: run npm run diagrams').toBe(renderRootReadme(readme));
    for (const [name] of allMachines) expect(readme).toContain(`### ${name}`);
  });
});
