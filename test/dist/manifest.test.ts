import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Declaration {
  name: string;
  tagName?: string;
  attributes?: Array<{ name: string; fieldName?: string; default?: string }>;
  members?: Array<{
    kind: string;
    name: string;
    privacy?: string;
    static?: boolean;
    default?: string;
    attribute?: string;
  }>;
  events?: Array<{ name?: string; type?: { text: string } }>;
  slots?: Array<{ name: string }>;
  cssParts?: Array<{ name: string }>;
  cssProperties?: Array<{ name: string; default?: string }>;
}
interface Module {
  path: string;
  declarations?: Declaration[];
  exports?: Array<{ kind: string; name: string; declaration: { name: string; module?: string } }>;
}

const manifest = JSON.parse(readFileSync('dist/custom-elements.json', 'utf8')) as { modules: Module[] };
const agentChat = manifest.modules
  .flatMap((m) => m.declarations ?? [])
  .find((d) => d.tagName === 'agent-chat')!;
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
/** The reference's tables, which site owners read: they must say what the element does. */
const readme = readFileSync('docs/reference.md', 'utf8');

/** The first markdown table after `marker` (a heading, or a table's header), as rows of cells with code ticks removed. */
function tableAfter(marker: string): string[][] {
  const start = readme.indexOf(marker.startsWith('|') ? marker : `\n${marker}\n`);
  expect(start, `docs/reference.md has no "${marker}"`).toBeGreaterThan(-1);
  const lines = readme.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/^`|`$/g, '')),
    );
  }
  return rows;
}

const publicMembers = (agentChat.members ?? []).filter(
  (m) => !m.static && (m.privacy ?? 'public') === 'public',
);

describe('custom-elements.json', () => {
  it('is referenced from package.json', () => {
    expect(pkg.customElements).toBe('dist/custom-elements.json');
    expect(pkg.exports['./custom-elements.json']).toBe('./dist/custom-elements.json');
  });

  it('has the custom-element-definition of <agent-chat>', () => {
    const definitions = manifest.modules.flatMap((m) =>
      (m.exports ?? []).filter((e) => e.kind === 'custom-element-definition'),
    );
    expect(definitions).toEqual([
      {
        kind: 'custom-element-definition',
        name: 'agent-chat',
        declaration: { name: 'AgentChat', module: 'src/components/agent-chat/agent-chat.ts' },
      },
    ]);
  });

  it('names every event and gives its class', () => {
    expect(agentChat.events!.length).toBeGreaterThan(0);
    for (const event of agentChat.events!) {
      expect(event.name).toMatch(/^agent-chat-/);
      expect(event.type?.text).toMatch(/^AgentChat\w+Event$/);
    }
  });

  it('lists every --agent-chat-* custom property the styles declare or read, with a default', () => {
    const used = new Set<string>();
    for (const file of [
      'src/styles/tokens.styles.ts',
      'src/components/agent-chat/agent-chat.styles.ts',
      'src/components/composer/composer.styles.ts',
      'src/components/message/message.styles.ts',
      'src/components/message-list/message-list.styles.ts',
      'src/components/thread-list/thread-list.styles.ts',
    ]) {
      for (const [, name] of readFileSync(file, 'utf8').matchAll(/(--agent-chat-[\w-]+)/g)) used.add(name);
    }
    const documented = new Map(agentChat.cssProperties!.map((p) => [p.name, p.default]));
    expect([...used].filter((name) => !documented.has(name))).toEqual([]);
    for (const [name, value] of documented) expect(value, name).toBeTruthy();
  });
});

describe("the reference's tables match the manifest", () => {
  it('attributes and properties, with defaults', () => {
    const rows = tableAfter('### Attributes and properties');
    const attributes = rows
      .filter(([attribute]) => attribute)
      .map(([attribute, property, defaultValue]) => ({ attribute, property, defaultValue }));
    // A default the analyzer can only give as a constant's name is documented by its value.
    const named = (value: string | undefined) => value !== undefined && /^[A-Z][A-Z0-9_]+$/.test(value);
    expect(attributes).toEqual(
      agentChat.attributes!.map((a, i) => ({
        attribute: a.name,
        property: a.fieldName,
        defaultValue: named(a.default) ? attributes[i]?.defaultValue : (a.default ?? ''),
      })),
    );
    const properties = rows.map(([, property]) => property).sort();
    expect(properties).toEqual(
      publicMembers
        .filter((m) => m.kind === 'field')
        .map((m) => m.name)
        .sort(),
    );
  });

  it('methods', () => {
    const methods = tableAfter('### Methods').map(([signature]) => signature.replace(/\(.*$/, ''));
    expect(methods).toEqual(publicMembers.filter((m) => m.kind === 'method').map((m) => m.name));
  });

  it('events, with their classes', () => {
    const events = tableAfter('### Events').map(([name, type]) => ({ name, type }));
    expect(events).toEqual(agentChat.events!.map((e) => ({ name: e.name, type: e.type?.text })));
  });

  it('CSS custom properties, with defaults', () => {
    const props = tableAfter('### Theming').map(([name, defaultValue]) => ({ name, defaultValue }));
    expect(props).toEqual(agentChat.cssProperties!.map((p) => ({ name: p.name, defaultValue: p.default })));
  });

  it('CSS parts', () => {
    const parts = tableAfter('| CSS part |').map(([name]) => name);
    expect(parts).toEqual(agentChat.cssParts!.map((p) => p.name));
  });

  it('the loader exports every part (so ::part works through it)', async () => {
    const { PARTS } = await import('../../src/loader/surface.js');
    expect(PARTS).toEqual(agentChat.cssParts!.map((p) => p.name));
  });

  it('slots', () => {
    expect(agentChat.slots ?? []).toEqual([]);
    expect(readme).toContain('The element has no slots.');
  });
});
