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
