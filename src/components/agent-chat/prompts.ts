/** The `prompts` attribute's starter prompts, separated by `|`, without blanks. */
export const promptList = (prompts: string): readonly string[] =>
  prompts
    .split('|')
    .map((p) => p.trim())
    .filter(Boolean);
