// The runtime template compiler, so the fixture needs no SFC plugin.
export default { resolve: { alias: { vue: 'vue/dist/vue.esm-bundler.js' } } };
