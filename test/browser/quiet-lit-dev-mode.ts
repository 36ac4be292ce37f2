// Lit's development build runs under test for its extra checks; its one-time "Lit is in dev
// mode" notice is the only warning it is told to skip (the documented way: the code in
// litIssuedWarnings). Imported before anything that imports Lit.
const lit = globalThis as typeof globalThis & { litIssuedWarnings?: Set<string> };
lit.litIssuedWarnings ??= new Set();
lit.litIssuedWarnings.add('dev-mode');

export {};
