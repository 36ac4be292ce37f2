import { describe, expect, it } from 'vitest';
import { minifyCssTemplates } from '../../../scripts/minify-css-templates.mjs';

describe('minifyCssTemplates', () => {
  it('drops comments and layout whitespace, keeps combinators and interpolations', () => {
    const source =
      "const a = css`\n  /* why */\n  .a :hover,\n  .b > .c {\n    color: red;\n  }\n  ${tokens(true)}\n  :host([x='y']) { }\n`;\nconst b = `  keep  me  `;";
    expect(minifyCssTemplates(source)).toBe(
      "const a = css` .a :hover, .b > .c{color: red;}${tokens(true)}:host([x='y']){}`;\nconst b = `  keep  me  `;",
    );
  });

  it('reads past an escaped backtick, so what follows it is minified too', () => {
    const source =
      'const a = css`\n  /* a rule for \\`*\\` */\n  .a {\n    color: red;\n  }\n`;\nconst b = `  keep  `;';
    expect(minifyCssTemplates(source)).toBe('const a = css` .a{color: red;}`;\nconst b = `  keep  `;');
  });
});
