/**
 * A chat answers from its project's documentation and nothing else (decision 298): project A's
 * agent never cites, quotes or sends upstream project B's docs, whichever agent answers.
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Source } from '../../../../contract/types.js';
import { readChatStream } from '../../../../src/api/stream.js';
import { OpenAiAgent } from '../../../../service/agents/openai.js';
import type { Agent } from '../../../../service/agents/types.js';
import { readDocsFolder } from '../../../../service/docs/folder.js';
import { DocsLibrary } from '../../../../service/docs/library.js';
import { ManualClock } from '../../../../service/kernel/clock.js';
import { memoryStores } from '../../../../service/storage/memory/index.js';
import { BASE, PROJECT, makeService } from '../../../fixtures/service.js';

const FOLDER = join(import.meta.dirname, '../../../fixtures/docs-site/docs');
const OTHER = { id: 'proj_other', apiKey: 'key_other', integrationIds: ['int_other'] };
/** Words only project A's docs hold (a setting of its configuration page). */
const QUESTION = 'What is max_locks_per_transaction?';

/** Project A's docs are the fixture folder; project B has none. */
async function twoProjects(agent?: Agent) {
  const storage = memoryStores();
  const clock = new ManualClock();
  const docs = new DocsLibrary({ store: storage.docs, clock, readFolder: readDocsFolder });
  await docs.addSource(PROJECT.id, FOLDER, 'https://a.example/docs');
  await docs.tick();
  const made = makeService({ storage, clock, docs, projects: [PROJECT, OTHER], ...(agent && { agent }) });
  onTestFinished(() => made.service.close());
  /** Asks as a visitor of `project`: the sources cited and the text. */
  const ask = async (project: typeof PROJECT) => {
    const agentPath = `${BASE}/agent/v1/projects/${project.id}/agent`;
    const minted = await made.call('POST', `${agentPath}/sessions/`, { apiKey: project.apiKey });
    const { session_token: token } = (await minted.json()) as { session_token: string };
    const response = await made.call('POST', `${agentPath}/chat/`, {
      token,
      body: { integration_id: project.integrationIds[0], message: QUESTION },
    });
    const sources: Source[] = [];
    let text = '';
    for await (const event of readChatStream(response.body!)) {
      if (event.type === 'sources') sources.push(...event.sources);
      if (event.type === 'delta') text += event.text;
    }
    return { sources, text };
  };
  return { ask };
}

describe("a project's answers come from its own docs", () => {
  it("the demo agent cites and quotes project A's page for A, and nothing of it for B", async () => {
    const { ask } = await twoProjects();
    const a = await ask(PROJECT);
    expect(a.sources[0].source_url).toBe(
      'https://a.example/docs/reference/config.html#max_locks_per_transaction',
    );
    expect(a.text).toContain('How many objects one transaction may lock');
    const b = await ask(OTHER);
    expect(b.sources.some((s) => s.source_url.startsWith('https://a.example/'))).toBe(false);
    expect(b.text).not.toContain('How many objects one transaction may lock');
  });

  it("the model agent sends project A's sections upstream for A only", async () => {
    const bodies: string[] = [];
    const agent = new OpenAiAgent({
      baseUrl: 'http://model.test/v1',
      model: 'm',
      fetch: async (_url, init) => {
        bodies.push(typeof init?.body === 'string' ? init.body : '');
        return new Response(
          'data: {"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
          {
            headers: { 'Content-Type': 'text/event-stream' },
          },
        );
      },
    });
    const { ask } = await twoProjects(agent);
    const a = await ask(PROJECT);
    expect(a.sources[0].source_url).toContain('https://a.example/docs/reference/config.html');
    expect(bodies[0]).toContain('https://a.example/docs/reference/config.html');
    const b = await ask(OTHER);
    expect(b.sources).toEqual([]);
    expect(bodies[1]).not.toContain('a.example');
    expect(bodies[1]).toContain('(no document matched this question)');
  });
});
