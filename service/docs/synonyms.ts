import { terms } from './terms.js';

/**
 * Words a visitor uses where documentation says another (decision 288): a question's word adds
 * the others of its group at half weight. A general vocabulary of software documentation, the
 * short and long forms of common words first; nothing here names one product. The bench keeps
 * a held-out question set to tell whether a group helps beyond the questions it was tried on.
 */
const GROUPS = [
  // Short and long forms.
  'dir directory folder',
  'config configuration settings',
  'env environment',
  'arg argument',
  'param parameter',
  'func function',
  'dict dictionary',
  'str string',
  'int integer',
  'bool boolean',
  'db database',
  'repo repository',
  'app application',
  'auth authentication authenticate login',
  'info information',
  'max maximum',
  'min minimum',
  'tmp temp temporary',
  'id identifier',
  'async asynchronous',
  'doc docs documentation',
  // Verbs of the same act.
  'run execute',
  'stop terminate kill cancel abort',
  'delete remove erase',
  'create make',
  'change modify update edit',
  'save store persist',
  'combine merge',
  'check verify validate',
  'show display print output',
  'fetch download retrieve',
  // Nouns of the same thing.
  'error exception',
  'website web url',
  'flag option switch',
  'speed performance fast slow',
  'parallel concurrent',
];

/** Each word's stem, with the other words of its groups. */
const SYNONYMS = new Map<string, string[]>();
for (const group of GROUPS) {
  const words = group.split(' ');
  for (const word of words)
    for (const stem of terms(word))
      SYNONYMS.set(stem, [...new Set([...(SYNONYMS.get(stem) ?? []), ...words.filter((w) => w !== word)])]);
}

/**
 * What a question's words add through their groups: the words to search for too, and their
 * terms (those the question has already are left out).
 */
export function synonymsOf(question: string): { words: string[]; terms: Set<string> } {
  const own = new Set(terms(question));
  const words = new Set<string>();
  for (const term of own) for (const word of SYNONYMS.get(term) ?? []) words.add(word);
  const added = new Set(terms([...words].join(' ')).filter((term) => !own.has(term)));
  return { words: [...words].filter((word) => terms(word).some((term) => added.has(term))), terms: added };
}
