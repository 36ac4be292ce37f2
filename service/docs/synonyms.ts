import { terms, termsOf, tokenize } from './terms.js';

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

/**
 * A site owner's synonyms (decision 422): groups of words or phrases that mean one thing on their
 * site ("auto increment, serial, identity column"), for the questions whose words their docs do
 * not use. Unlike the general groups above, the owner's are added at full weight: the owner says
 * they are the same thing there.
 */
const MAX_SYNONYM_GROUPS = 200;
const MAX_SYNONYM_MEMBERS = 20;
const MAX_SYNONYM_LENGTH = 100;

/** Groups shaped as lists of strings: what `splitSynonyms` takes from the API. */
export const isSynonymList = (groups: readonly unknown[]): groups is string[][] =>
  groups.every((group) => Array.isArray(group) && group.every((member) => typeof member === 'string'));

/** What is wrong with an owner's groups, naming the first bad one; null when they are fine. */
export function synonymProblem(groups: readonly unknown[]): string | null {
  if (!isSynonymList(groups)) return 'Each synonym group is a list of words or phrases.';
  if (groups.length > MAX_SYNONYM_GROUPS)
    return `At most ${MAX_SYNONYM_GROUPS} synonym groups (${groups.length} given).`;
  for (const group of groups) {
    const named = `The synonym group "${group.join(', ').slice(0, 60)}"`;
    if (group.length < 2) return `${named} needs at least two words or phrases.`;
    if (group.length > MAX_SYNONYM_MEMBERS)
      return `${named} has more than ${MAX_SYNONYM_MEMBERS} words or phrases.`;
    for (const member of group) {
      if (member.length > MAX_SYNONYM_LENGTH)
        return `${named} has a phrase over ${MAX_SYNONYM_LENGTH} characters.`;
      if (!terms(member).length) return `${named} has "${member}", which has no word a search ranks.`;
    }
  }
  return null;
}

/**
 * Groups as an owner typed them (one per line, members separated by commas; a line starting with
 * `#` is a comment), or as the API took them: trimmed, blank members and repeats dropped, empty
 * lines skipped.
 */
export function splitSynonyms(text: string | readonly (readonly string[])[]): string[][] {
  const lines =
    typeof text === 'string'
      ? text
          .split('\n')
          .filter((line) => !line.trimStart().startsWith('#'))
          .map((line) => line.split(','))
      : text;
  return lines
    .map((members) => [
      ...new Set(members.map((member) => member.replace(/\s+/g, ' ').trim()).filter(Boolean)),
    ])
    .filter((members) => members.length > 0);
}

/** An owner's groups ready for questions: each member with its terms. */
export class Vocabulary {
  private readonly groups: { words: string; terms: string[] }[][];

  constructor(groups: readonly (readonly string[])[] = []) {
    this.groups = groups.map((group) => group.map((words) => ({ words, terms: terms(words) })));
  }

  get size(): number {
    return this.groups.length;
  }

  /**
   * What the owner's groups add to a question: a member whose every term the question has (all
   * of "running total") brings the group's other members, their words to search for and their
   * terms (those the question has already are left out).
   */
  expand(question: string): { words: string[]; terms: Set<string> } {
    const own = new Set(terms(question));
    const words = new Set<string>();
    for (const group of this.groups)
      for (const member of group)
        if (member.terms.length && member.terms.every((term) => own.has(term)))
          for (const other of group) if (other !== member) words.add(other.words);
    const added = new Set(terms([...words].join(' ')).filter((term) => !own.has(term)));
    return { words: [...words].filter((word) => terms(word).some((term) => added.has(term))), terms: added };
  }
}

/** The general groups above, as the owner's are read: each word a member of its group. */
const GENERAL = new Vocabulary(GROUPS.map((group) => group.split(' ')));

/**
 * What a question's words add through the general groups: the words to search for too, and
 * their terms (those the question has already are left out).
 */
export const synonymsOf = (question: string) => GENERAL.expand(question);

/**
 * A synonym group that may bring a missed page to a question (decision 428): the question's words
 * the page never uses, beside the page's name (its title up to a dash, without a section number:
 * "3.5. Window Functions" is "window functions"). Null when fewer than 2 are missing (the page lost
 * on weight, not words; and a one-word group, "list, arrays", would add the page to every question
 * with that word), when more than 3 are (the question is about something else), or when the group
 * would be refused.
 */
export function suggestSynonym(question: string, page: { title: string; text: string }): string[] | null {
  const onPage = new Set(terms(`${page.title}\n${page.text}`));
  const absent = [
    ...new Set(
      tokenize(question)
        .filter((token) => {
          const found = /^\p{L}+$/u.test(token) ? termsOf(token) : null;
          return !!found?.length && found.every((term) => !onPage.has(term));
        })
        .map((word) => word.toLowerCase()),
    ),
  ];
  if (absent.length < 2 || absent.length > 3) return null;
  const name = page.title
    .split(/\s[-–—|:]\s/)[0]
    .replace(/^(?:[A-Z]|\d+)(?:\.\d+)*\.\s+/, '')
    .trim()
    .toLowerCase();
  const group = [absent.join(' '), name];
  return name && group[0] !== name && !synonymProblem([group]) ? group : null;
}
