// Registration is a dynamic import, so importing the package where there is no DOM (SSR in
// Next.js, Astro, Nuxt; Workers; plain Node) evaluates no element class and registers nothing.
if (typeof window !== 'undefined' && typeof customElements !== 'undefined') {
  void import('./element.js');
}
