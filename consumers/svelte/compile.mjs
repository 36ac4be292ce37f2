// Compiles the component with svelte/compiler, so the fixture needs no Vite plugin.
import { readFileSync, writeFileSync } from 'node:fs';
import { compile } from 'svelte/compiler';

const { js } = compile(readFileSync('src/App.svelte', 'utf8'), {
  generate: 'client',
  filename: 'App.svelte',
});
writeFileSync('src/App.js', js.code);
