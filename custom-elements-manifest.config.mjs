// Reads the JSDoc of the elements (@tag, @fires, @csspart, @cssprop) into custom-elements.json,
// the file IDEs, Storybook and framework wrappers use to learn the public API. The README's
// tables are checked against it (test/dist/manifest.test.ts).

/**
 * `defineOnce(tag, Class)` in src/define.ts registers the elements, so the analyzer, which
 * knows only `customElements.define`, would list no custom-element-definition. This reads
 * those calls and adds the definitions to src/define.ts's module.
 */
function defineOnceDefinitions() {
  const definitions = [];
  return {
    name: 'agent-chat-define-once',
    analyzePhase({ ts, node, moduleDoc }) {
      if (!ts.isCallExpression(node) || node.expression.getText() !== 'defineOnce') return;
      const [tag, cls] = node.arguments;
      if (tag && cls && ts.isStringLiteral(tag))
        definitions.push({ module: moduleDoc, tag: tag.text, className: cls.getText() });
    },
    packageLinkPhase({ customElementsManifest }) {
      const byClass = new Map();
      for (const mod of customElementsManifest.modules) {
        for (const declaration of mod.declarations ?? [])
          if (declaration.kind === 'class') byClass.set(declaration.name, mod.path);
      }
      for (const { module, tag, className } of definitions) {
        // @internal children are left out of the manifest, and so are their definitions.
        if (!byClass.has(className)) continue;
        module.exports ??= [];
        module.exports.push({
          kind: 'custom-element-definition',
          name: tag,
          declaration: { name: className, module: byClass.get(className) },
        });
      }
    },
  };
}

/**
 * The analyzer also records `dispatchEvent(new SomeEvent(…))` calls, without a name (it is a
 * static of the class). The `@fires` tag names the same event, so the nameless copy goes.
 */
function dropNamelessEvents() {
  return {
    name: 'agent-chat-drop-nameless-events',
    packageLinkPhase({ customElementsManifest }) {
      for (const mod of customElementsManifest.modules) {
        for (const declaration of mod.declarations ?? []) {
          if (!declaration.events) continue;
          const named = new Set(declaration.events.filter((e) => e.name).map((e) => e.type?.text));
          declaration.events = declaration.events.filter((e) => e.name || !named.has(e.type?.text));
        }
      }
    },
  };
}

export default {
  globs: ['src/components/**/*.ts', 'src/define.ts'],
  exclude: ['src/components/**/*.styles.ts'],
  outdir: 'dist',
  litelement: true,
  plugins: [defineOnceDefinitions(), dropNamelessEvents()],
};
