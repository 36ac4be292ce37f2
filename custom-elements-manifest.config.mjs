// Reads the JSDoc of the elements (@tag, @fires, @csspart, @cssprop) into custom-elements.json,
// the file IDEs, Storybook and framework wrappers use to learn the public API.
export default {
  globs: ['src/components/**/*.ts'],
  exclude: ['src/components/**/*.styles.ts'],
  outdir: 'dist',
  litelement: true,
};
