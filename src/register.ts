// Registration is a dynamic import, so importing the package where there is no DOM (SSR in
// Next.js, Astro, Nuxt; Workers; plain Node) evaluates no element class and registers nothing.
// In a browser it is awaited: code that imports the package runs after <agent-chat> is defined,
// so React 19 sees the element's properties and sets getSessionToken as a property, not as an
// attribute it would drop.
if (typeof window !== 'undefined' && typeof customElements !== 'undefined') {
  await import('./element.js');
}

export {};
