import { stemmer } from 'stemmer';

/**
 * The words of documents and questions as the index compares them: lowercase, English words
 * stemmed (Porter: "indexes", "indexing" → "index"), stopwords and one-letter words dropped, and
 * identifiers kept whole beside their parts: `max_locks_per_transaction`, `os.path.join`,
 * `ERR_FOO`, `--verbose` and `3.11` each stay one term (plus `max`, `lock`, `transact`…), so a
 * question that names one exactly finds the sections that name it, where the rarer whole term
 * outweighs its common parts.
 */

/** Question and filler words: they say nothing about which section answers. */
export const STOPWORDS = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below between both ' +
    'but by can could did do does doing down during each else few for from further had has have having he her ' +
    'here hers him his how i if in into is it its itself just me more most my myself no nor not now of off on ' +
    'once only or other our ours out over own please same she should so some such than that the their theirs ' +
    'them then there these they this those through to too under until up very was we were what when where ' +
    'which while who whom why will with would you your yours yourself tell want wants need needs way one ' +
    "i'm it's what's don't doesn't can't isn't"
  ).split(' '),
);

/**
 * A run of letters and digits, joined by `_ . : - /` or `::` inside (`os.path.join`,
 * `max_locks_per_transaction`, `ERR_FOO`, `application/json`), with leading dashes of a flag.
 */
const TOKEN = /(?:--?)?[\p{L}\p{N}_]+(?:(?:::|[._:\-/'])[\p{L}\p{N}_]+)*/gu;
const PARTS = /[\p{L}\p{N}]+/gu;
const WORD = /^\p{L}+$/u;

/** Splits text into raw tokens (the index's `tokenize`). */
export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** One word as a term: lowercased, stemmed when it is a plain English word; null when it says nothing. */
function word(part: string): string | null {
  if (part.length < 2 && !/\d/.test(part)) return null;
  if (STOPWORDS.has(part)) return null;
  return WORD.test(part) && /^[a-z]+$/.test(part) ? stemmer(part) : part;
}

/** Parts of a token: runs of letters and digits, and the words of camelCase (`getElementById`). */
const partsOf = (token: string): string[] =>
  (token.match(PARTS) ?? []).flatMap((part) => part.match(CAMEL) ?? [part]).map((part) => part.toLowerCase());
const CAMEL = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|\p{Lo}+/gu;

/**
 * Whether a raw token names something in code rather than being a word: it joins parts with
 * `_ . : - /`, starts with dashes (`--verbose`), or mixes case inside (`UnicodeDecodeError`).
 */
export const isIdentifier = (token: string): boolean =>
  /^-|[\p{L}\p{N}][_.:/-][\p{L}\p{N}_]/u.test(token) ||
  /\p{Ll}\p{Lu}|\p{Lu}{2}\p{Ll}/u.test(token) ||
  token.startsWith('_');

/**
 * The terms of one raw token (the index's `processTerm`): a plain word gives its stem; an
 * identifier gives itself whole (lowercased, never stemmed) and the terms of its parts.
 */
export function termsOf(token: string): string[] | null {
  const lower = token.toLowerCase();
  // An English contraction or possessive ("visitor's", "don't") is the word it starts with.
  const contraction = /^\p{L}+'\p{L}{1,2}$/u.test(lower);
  if (contraction && STOPWORDS.has(lower)) return null;
  if (contraction || !isIdentifier(token)) {
    const term = word((lower.match(PARTS) ?? [])[0] ?? '');
    return term ? [term] : null;
  }
  const terms = new Set<string>([lower]);
  for (const part of partsOf(token)) {
    const term = word(part);
    if (term) terms.add(term);
  }
  return [...terms];
}

/** Every term of `text`, in order (the same analysis the index applies). */
export function terms(text: string): string[] {
  return tokenize(text).flatMap((token) => termsOf(token) ?? []);
}
