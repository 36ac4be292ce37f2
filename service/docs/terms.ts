import { stemmer } from 'stemmer';

/**
 * The words of documents and questions as the index compares them: lowercase, Latin accents
 * folded, Chinese, Japanese and Korean as pairs of characters (decision 434), English words
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
// Marks (\p{M}) are of the letter they follow: Devanagari's vowel signs, Thai's tone marks.
const TOKEN = /(?:--?)?[\p{L}\p{M}\p{N}_]+(?:(?:::|[._:\-/'])[\p{L}\p{M}\p{N}_]+)*/gu;
const PARTS = /[\p{L}\p{M}\p{N}]+/gu;
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
const CAMEL = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|[\p{Lo}\p{M}]+/gu;

/**
 * Whether a raw token names something in code rather than being a word: it joins parts with
 * `_ . : - /`, starts with dashes (`--verbose`), or mixes case inside (`UnicodeDecodeError`).
 */
export const isIdentifier = (token: string): boolean =>
  /^-|[\p{L}\p{N}][_.:/-][\p{L}\p{N}_]/u.test(token) ||
  /\p{Ll}\p{Lu}|\p{Lu}{2}\p{Ll}/u.test(token) ||
  token.startsWith('_');

/**
 * Latin letters without their accents ("paramètres" is "parametres"): visitors type them either
 * way, as search engines fold them (Elasticsearch's asciifolding). Latin only: a Japanese kana's
 * voicing mark (が) is part of the letter, and Hangul decomposed is no longer a syllable.
 */
const fold = (text: string) =>
  text.replace(/[\u00C0-\u024F\u1E00-\u1EFF]/g, (letter) => letter.normalize('NFD').replace(/\p{M}/gu, ''));

/** Scripts written without spaces between words (Chinese, Japanese) or read as such (Korean). */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC]/u;
const CJK_RUNS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC]+/gu;

/**
 * A token with Chinese, Japanese or Korean in it: each run of those characters as its overlapping
 * pairs ("安装软件": 安装, 装软, 软件), a lone character as itself, the rest as any token. Text
 * without spaces has no words to split at; pairs are how Lucene's CJK analyzer indexes it, with no
 * dictionary, and a question's pairs meet the text's where they share a word.
 */
function cjkTerms(token: string): string[] {
  const terms: string[] = [];
  for (const run of token.match(CJK_RUNS) ?? []) {
    if (!CJK.test(run)) {
      terms.push(...(termsOf(run) ?? []));
      continue;
    }
    const letters = Array.from(run);
    if (letters.length === 1) terms.push(run);
    for (let i = 0; i + 1 < letters.length; i++) terms.push(letters[i] + letters[i + 1]);
  }
  return terms;
}

/**
 * Thai, Lao, Khmer and Burmese, also written without spaces, split at words by the platform's
 * Unicode word breaker (ICU's dictionaries for those scripts, in Node and in browsers alike).
 */
const SOUTHEAST_ASIAN = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const words = new Intl.Segmenter('en', { granularity: 'word' });

/**
 * Tokens already analysed. A manual of 15,000 sections is 2 million tokens but 60,000 distinct
 * ones, and the analysis (regular expressions, the stemmer) was half of building its index.
 * Bounded: emptied when full, so a crawl of a site in many languages cannot grow it.
 */
const analysed = new Map<string, readonly string[] | null>();
const MAX_ANALYSED = 100_000;

/**
 * The terms of one raw token (the index's `processTerm`): a plain word gives its stem; an
 * identifier gives itself whole (lowercased, never stemmed) and the terms of its parts. The
 * list is shared between calls with the same token: read it, never change it.
 */
export function termsOf(raw: string): readonly string[] | null {
  let found = analysed.get(raw);
  if (found === undefined) {
    if (analysed.size >= MAX_ANALYSED) analysed.clear();
    analysed.set(raw, (found = analyse(raw)));
  }
  return found;
}

function analyse(raw: string): string[] | null {
  if (CJK.test(raw)) return cjkTerms(raw);
  const parts = SOUTHEAST_ASIAN.test(raw) ? Array.from(words.segment(raw)) : [];
  if (parts.length > 1)
    return parts.flatMap((part) => (part.isWordLike ? termsOf(part.segment) : null) ?? []);
  // One spelling of each letter (é typed as e and an accent is é), then Latin accents folded; ASCII
  // (nearly every token of an English manual) has neither to do.
  const token = /^[ -~]*$/.test(raw) ? raw : fold(raw.normalize('NFC'));
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
