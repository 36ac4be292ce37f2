import { readdir, readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { Article } from './knowledge.js';

/**
 * A folder of Markdown files as documents: one per file, titled by its first `# ` heading,
 * linked at `docsUrl` + its path without `.md`.
 */
export async function loadMarkdownDocs(dir: string, docsUrl: string): Promise<Article[]> {
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.md')).sort();
  return Promise.all(
    files.map(async (file) => {
      const body = await readFile(join(dir, file), 'utf8');
      const path = file.split(sep).join('/').replace(/\.md$/, '');
      return {
        id: path,
        title: /^#\s+(.+)$/m.exec(body)?.[1].trim() ?? path,
        url: `${docsUrl.replace(/\/+$/, '')}/${path}`,
        keywords: '',
        body,
      };
    }),
  );
}
