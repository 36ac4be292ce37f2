// Deterministic, realistic agent markdown: headings, paragraphs with inline marks and links,
// lists, code blocks and tables, repeated to the size asked for.
const SECTION = (i) => `## Step ${i}: configure the widget

The \`<agent-chat>\` element reads its **configuration** from attributes, so a site owner can
paste it into any page. See the [reference](https://docs.example.com/reference#step-${i}) for
every option; _nothing_ here needs a build step.

- Set \`project-id\` and \`integration-id\` from the dashboard.
- Point \`session-endpoint\` at your server (section ${i}).
- Optionally choose a \`theme\`: light, dark or auto.

\`\`\`html
<agent-chat project-id="proj_${i}" integration-id="int_${i}"
            session-endpoint="/api/agent-session"></agent-chat>
\`\`\`

| Attribute | Required | Default |
|---|---|---|
| project-id | yes | — |
| theme | no | light |

`;

export function realisticMarkdown(bytes) {
  let text = '';
  for (let i = 1; text.length < bytes; i += 1) text += SECTION(i);
  return text.slice(0, bytes);
}

/** Cuts text into ~size-byte deltas on word boundaries, as models stream. */
export function deltas(text, size = 20) {
  const out = [];
  let current = '';
  for (const word of text.match(/\S+\s*|\s+/g) ?? []) {
    current += word;
    if (current.length >= size) {
      out.push(current);
      current = '';
    }
  }
  if (current) out.push(current);
  return out;
}

/** 64 KB of shapes that make backtracking or recursive markdown parsers blow up. */
export function hostileMarkdown() {
  const repeat = (unit, size) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  const nestedList = Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
  return [
    'An answer gone wrong:',
    repeat('` `` ', 12_000),
    repeat('*a **b _c __d ', 8_000),
    `${'['.repeat(4_000)}${']'.repeat(4_000)}`,
    repeat('[a](', 8_000),
    nestedList,
    `${'>'.repeat(200)} quoted`,
    `| a | b |\n|---|---|\n${Array.from({ length: 300 }, (_, i) => `| ${i} | **x** |`).join('\n')}`,
  ]
    .join('\n\n')
    .slice(0, 64 * 1024);
}
