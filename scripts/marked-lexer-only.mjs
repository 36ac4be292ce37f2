/**
 * A Vite plugin that leaves only marked's Lexer (and its Tokenizer) in the bundle.
 *
 * marked ships one pre-minified module whose last statements build a default `Marked` instance
 * and hang the HTML Parser and Renderer on the `marked` function. Those statements keep the
 * whole HTML side alive although the widget only lexes (it renders tokens to Lit templates,
 * never to HTML strings), and no bundler setting can drop them. Cutting the module before the
 * default instance and exporting the Lexer alone lets tree-shaking remove the rest: about
 * 3 KB gzip. The conformance suite runs through this same cut module (Vite applies the plugin
 * in the browser tests too), so a marked upgrade that changes what the cut removes fails there;
 * a change of the module's shape fails the build here, with the reason.
 *
 * @returns {import('vite').Plugin}
 */
export function markedLexerOnly() {
  return {
    name: 'marked-lexer-only',
    enforce: 'pre',
    transform(code, id) {
      if (!/[\\/]node_modules[\\/]marked[\\/]lib[\\/]marked\.esm\.js$/.test(id)) return null;
      const exportList = /export\s*\{([^}]*)\};?\s*(\/\/# sourceMappingURL=.*)?\s*$/.exec(code);
      const names = Object.fromEntries(
        (exportList?.[1] ?? '')
          .split(',')
          .map((entry) => entry.trim().split(/\s+as\s+/))
          .map(([local, exported]) => [exported, local]),
      );
      // The Tokenizer too: the widget bounds one of its rules (src/markdown/parse.ts); the Lexer uses it anyway.
      const { Lexer: lexer, Tokenizer: tokenizer, Marked: markedClass } = names;
      const instance =
        markedClass && new RegExp(`var [\\w$]+=new ${markedClass.replace(/\$/g, '\\$')};`).exec(code);
      if (!lexer || !tokenizer || !instance) {
        throw new Error(
          'marked-lexer-only: marked.esm.js no longer ends with a default Marked instance and an export list; check the upgrade and update scripts/marked-lexer-only.mjs.',
        );
      }
      return {
        code: `${code.slice(0, instance.index)}export{${lexer} as Lexer,${tokenizer} as Tokenizer};\n`,
        map: null,
      };
    },
  };
}
