// BENCH ONLY (decision 794): WordNet 3.0 (Debian's wordnet-base, /usr/share/wordnet) read for
// query expansion: a word's synsets by part of speech (morphy's exceptions and detachment rules
// for inflected forms), each synset's lemmas, hypernyms and derivationally related forms.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = '/usr/share/wordnet';
const POS = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };
const RULES = {
  n: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  v: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  a: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  r: [],
};

export function loadWordNet() {
  const index = {};
  const exceptions = {};
  const data = {};
  for (const [pos, name] of Object.entries(POS)) {
    index[pos] = new Map();
    for (const line of readFileSync(join(DIR, `index.${name}`), 'utf8').split('\n')) {
      if (!line || line.startsWith(' ')) continue;
      const f = line.split(' ');
      const synsets = Number(f[2]);
      const pointers = Number(f[3]);
      index[pos].set(f[0], f.slice(4 + pointers + 2, 4 + pointers + 2 + synsets));
    }
    exceptions[pos] = new Map();
    for (const line of readFileSync(join(DIR, `${name}.exc`), 'utf8').split('\n')) {
      const [inflected, ...bases] = line.split(' ');
      if (inflected) exceptions[pos].set(inflected, bases);
    }
    data[pos] = readFileSync(join(DIR, `data.${name}`), 'latin1');
  }
  const cache = new Map();
  /** A synset by part of speech and byte offset: its lemmas and pointers. */
  function synset(pos, offset) {
    const key = `${pos}${offset}`;
    let found = cache.get(key);
    if (found) return found;
    const at = Number(offset);
    const line = data[pos].slice(at, data[pos].indexOf('\n', at)).split(' | ')[0].split(' ');
    const count = Number.parseInt(line[3], 16);
    const lemmas = [];
    for (let i = 0; i < count; i++) lemmas.push(line[4 + i * 2].replace(/\(.*\)$/, '').toLowerCase());
    const p = 4 + count * 2;
    const pointers = [];
    for (let i = 0; i < Number(line[p]); i++) {
      const [symbol, target, targetPos, sourceTarget] = line.slice(p + 1 + i * 4, p + 5 + i * 4);
      pointers.push({
        symbol,
        target,
        pos: targetPos === 's' ? 'a' : targetPos,
        source: Number.parseInt(sourceTarget.slice(0, 2), 16),
        targetWord: Number.parseInt(sourceTarget.slice(2), 16),
      });
    }
    cache.set(key, (found = { pos, offset, lemmas, pointers }));
    return found;
  }
  /** The base forms of `word` in `pos` WordNet knows (morphy). */
  function bases(word, pos) {
    const found = new Set();
    if (index[pos].has(word)) found.add(word);
    for (const base of exceptions[pos].get(word) ?? []) if (index[pos].has(base)) found.add(base);
    for (const [suffix, ending] of RULES[pos])
      if (word.endsWith(suffix) && word.length > suffix.length + 1) {
        const base = word.slice(0, -suffix.length) + ending;
        if (index[pos].has(base)) found.add(base);
      }
    return [...found];
  }
  /** Each part of speech of `word`: its lemma and its synsets, most frequent sense first. */
  function lookup(word) {
    const out = [];
    for (const pos of Object.keys(POS))
      for (const lemma of bases(word.toLowerCase(), pos))
        out.push({ pos, lemma, synsets: index[pos].get(lemma).map((offset) => synset(pos, offset)) });
    return out;
  }
  return { lookup, synset };
}
