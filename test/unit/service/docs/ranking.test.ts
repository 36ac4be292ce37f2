import { describe, expect, it } from 'vitest';
import { SectionIndex, diversify, fuseByRank } from '../../../../service/docs/ranking.js';
import { Vocabulary, splitSynonyms, synonymProblem } from '../../../../service/docs/synonyms.js';
import { terms } from '../../../../service/docs/terms.js';
import type { Section } from '../../../../service/docs/types.js';

const section = (page: string, heading: string | null, text: string, title = page): Section => ({
  url: `https://docs.test/${page}${heading ? `#${heading.toLowerCase().replace(/\W+/g, '-')}` : ''}`,
  pageUrl: `https://docs.test/${page}`,
  title,
  headings: heading ? [heading] : [],
  text,
});
const FILLER = 'The server keeps working while you read this paragraph about nothing in particular. ';
const urls = (index: SectionIndex, question: string) =>
  index.search(question, 5).map((hit) => hit.section.url);
const pages = (index: SectionIndex, question: string) =>
  index.search(question, 5).map((hit) => hit.section.pageUrl.slice('https://docs.test/'.length));

describe('terms: the analysis documents and questions share', () => {
  it('stems English words and drops stopwords and one-letter words', () => {
    expect(terms('How do I index indexes while indexing a table?')).toEqual([
      'index',
      'index',
      'index',
      'tabl',
    ]);
  });

  it('keeps identifiers and error codes whole beside their parts', () => {
    expect(terms('max_locks_per_transaction')).toEqual([
      'max_locks_per_transaction',
      'max',
      'lock',
      'per',
      'transact',
    ]);
    expect(terms('os.path.join')).toEqual(['os.path.join', 'os', 'path', 'join']);
    expect(terms('ERR_FOO')).toEqual(['err_foo', 'err', 'foo']);
    expect(terms('UnicodeDecodeError')).toEqual(['unicodedecodeerror', 'unicod', 'decod', 'error']);
    expect(terms('--verbose')).toEqual(['--verbose', 'verbos']);
  });
});

describe('SectionIndex on docs in other languages', () => {
  it('finds Chinese and Japanese sections by the words of a question, which are written without spaces', () => {
    const index = new SectionIndex([
      section('install', '安装', '在服务器上安装软件之前，请先检查系统要求。'),
      section('config', '配置', '修改配置文件以更改默认端口和日志级别。'),
      section(
        'upgrade',
        'アップグレード',
        '新しいバージョンへのアップグレードは、データベースをバックアップしてから行います。',
      ),
      section('backup', 'バックアップ', 'データを毎日自動で保存する方法。'),
      section('intro', null, FILLER.repeat(2)),
    ]);
    expect(pages(index, '怎么安装软件？')[0]).toBe('install');
    expect(pages(index, '如何更改端口')[0]).toBe('config');
    expect(pages(index, 'アップグレードの前に何をすればいいですか')[0]).toBe('upgrade');
  });

  it('finds Thai sections by the words of a question, split where the language splits them', () => {
    const index = new SectionIndex([
      section('install', 'การติดตั้ง', 'วิธีติดตั้งซอฟต์แวร์บนเซิร์ฟเวอร์ของคุณ'),
      section('backup', 'การสำรองข้อมูล', 'สำรองฐานข้อมูลทุกวันโดยอัตโนมัติ'),
    ]);
    expect(pages(index, 'ติดตั้งซอฟต์แวร์อย่างไร')[0]).toBe('install');
    expect(pages(index, 'สำรองข้อมูล')[0]).toBe('backup');
  });

  it('keeps a Hindi word whole with its vowel signs', () => {
    const index = new SectionIndex([
      section('install', 'स्थापना', 'सर्वर पर सॉफ़्टवेयर स्थापित करने का तरीका।'),
      section('backup', 'बैकअप', 'डेटाबेस का हर दिन बैकअप लें।'),
    ]);
    expect(pages(index, 'सॉफ़्टवेयर कैसे स्थापित करें')[0]).toBe('install');
    expect(terms('सॉफ़्टवेयर स्थापित')).toEqual(['सॉफ़्टवेयर', 'स्थापित']);
  });

  it('matches a word typed without its accents, and with them', () => {
    const index = new SectionIndex([
      section(
        'params',
        'Paramètres',
        'Les paramètres du serveur se règlent dans le fichier de configuration.',
      ),
      section('logs', 'Journaux', 'Les journaux, les messages et les erreurs: les fichiers du serveur.'),
    ]);
    // "les" alone would find the page that says it most.
    expect(pages(index, 'les parametres')[0]).toBe('params');
    expect(pages(index, 'les paramètres')[0]).toBe('params');
    expect(pages(index, 'Les PARAMETRES')[0]).toBe('params');
    // An accent typed as a letter and a combining mark (NFD) is the same letter.
    expect(pages(index, 'les parame\u0300tres')[0]).toBe('params');
  });
});

describe('SectionIndex', () => {
  it('finds a section by an identifier typed exactly, and by its words', () => {
    const index = new SectionIndex([
      section('config', 'max_locks_per_transaction', 'How many objects one transaction may lock at most.'),
      section(
        'locks',
        'Locks',
        'Every transaction takes locks; the maximum per table is set elsewhere. '.repeat(3),
      ),
      section('errors', 'ERR_OUT_OF_MEMORY', 'Raised when a transaction takes too many locks.'),
    ]);
    expect(urls(index, 'max_locks_per_transaction')[0]).toBe(
      'https://docs.test/config#max_locks_per_transaction',
    );
    expect(urls(index, 'what does ERR_OUT_OF_MEMORY mean')[0]).toBe(
      'https://docs.test/errors#err_out_of_memory',
    );
    expect(urls(index, 'max locks per transaction')).toContain(
      'https://docs.test/config#max_locks_per_transaction',
    );
  });

  it('never matches a prefix or a near spelling: "2" is not "20", "see" is not "seed"', () => {
    const index = new SectionIndex([
      section('numbers', 'Twenty', 'Set the pool to 20 connections and the seed to 7.'),
      section('other', 'Other', 'Nothing to do with the question.'),
    ]);
    expect(index.search('2')).toEqual([]);
    expect(index.search('see')).toEqual([]);
    expect(index.search('20')).toHaveLength(1);
  });

  it('ranks a short section about the words above a long page that mentions them once', () => {
    const index = new SectionIndex([
      section(
        'index-page',
        null,
        `${FILLER.repeat(300)} To cancel a query see the server functions. ${FILLER.repeat(300)}`,
      ),
      section(
        'queries',
        'Cancelling a query',
        'Call the cancel function with the process id to cancel a running query.',
      ),
    ]);
    expect(urls(index, 'how do I cancel a query')[0]).toBe('https://docs.test/queries#cancelling-a-query');
  });

  it('ranks the page whose opening says it is about the question above pages that mention its words', () => {
    const index = new SectionIndex([
      section('venv', null, 'Creating isolated virtual environments, each with the packages of one project.'),
      ...['Options', 'Activation', 'How it works', 'Upgrading'].map((heading) =>
        section('venv', heading, FILLER.repeat(4)),
      ),
      section('startup', null, 'How the interpreter starts.'),
      section(
        'startup',
        'Isolated mode',
        'Isolated mode ignores the environment variables, the project and the packages of the user.',
      ),
      section('packaging', null, 'The packages of a project are listed in a file in its environment.'),
    ]);
    // "Isolated mode" has more of the words, and a short page; the venv page says it is the answer.
    expect(urls(index, "set up an isolated environment for my project's packages")[0]).toBe(
      'https://docs.test/venv',
    );
  });

  it('weighs a title or heading that names the topic above a text that mentions it', () => {
    const index = new SectionIndex([
      section('a', 'Replication', `Replication copies data. ${FILLER}`),
      section('b', 'Backups', `Backups can be restored; replication is covered elsewhere. ${FILLER}`),
    ]);
    expect(urls(index, 'replication')[0]).toBe('https://docs.test/a#replication');
  });

  it('adds the other words of a synonym group at half weight: a folder is a directory', () => {
    const index = new SectionIndex([
      section('fs', 'Directories', 'List the files of a directory with the list function.'),
      section('other', 'Other', 'Nothing about that.'),
    ]);
    const [hit] = index.search('list the files in a folder');
    expect(hit.section.url).toBe('https://docs.test/fs#directories');
  });

  it("adds an owner's synonyms at full weight when the question has every word of one of a group's phrases", () => {
    const sections = [
      section(
        'window',
        'Window functions',
        'A window function computes over the rows related to the current one.',
      ),
      section(
        'explain',
        'EXPLAIN',
        `${FILLER}The total cost of a plan is shown for each row of the plan. ${FILLER}`,
      ),
    ];
    const question = 'running total over rows';
    expect(urls(new SectionIndex(sections), question)[0]).toBe('https://docs.test/explain#explain');
    const vocabulary = new Vocabulary([['running total', 'cumulative sum', 'window function']]);
    expect(urls(new SectionIndex(sections, undefined, vocabulary), question)[0]).toBe(
      'https://docs.test/window#window-functions',
    );
    // One word of a phrase is not the phrase: "total" alone brings nothing.
    expect(vocabulary.expand('total cost')).toEqual({ words: [], terms: new Set() });
    expect(vocabulary.expand('a running total').words).toEqual(['cumulative sum', 'window function']);
    // What the question says already is not searched twice.
    expect(vocabulary.expand('running total with a window function').words).toEqual(['cumulative sum']);
  });

  it("ranks a section with more of the question's words above one matching fewer more strongly", () => {
    const index = new SectionIndex([
      section(
        'streams',
        'Opening a stream',
        'Open a stream; opened streams stay open until closed.',
        'Opening',
      ),
      section('paths', 'Paths', `${FILLER}A file exists at a path when the path names one. ${FILLER}`),
      section('files', 'Files', 'Every file has a name.'),
      section('names', 'Names', 'A name exists for each file.'),
    ]);
    const hits = index.search('check whether a file exists before opening it');
    const rank = (url: string) => hits.findIndex((hit) => hit.section.url === url);
    // BM25 alone puts "file" three times (title, heading, text) first; "exists" and "file" answer.
    expect(hits[rank('https://docs.test/files#files')].match).toBeGreaterThan(
      hits[rank('https://docs.test/names#names')].match,
    );
    expect(rank('https://docs.test/names#names')).toBeLessThan(rank('https://docs.test/files#files'));
  });

  it("puts the best section of each of the first five pages before a page's second section", () => {
    const index = new SectionIndex([
      section('timeouts', 'Timeouts', 'A timeout ends a request: set the timeout per request.'),
      section(
        'timeouts',
        'Timeout errors',
        'When the timeout passes, the request fails with a timeout error.',
      ),
      section('timeouts', 'Default timeout', 'The default timeout of a request is thirty seconds.'),
      section('retries', 'Retries', `A request is retried after a timeout. ${FILLER}`),
    ]);
    const hits = index.search('request timeout');
    expect(hits.slice(0, 2).map((hit) => hit.section.pageUrl)).toEqual([
      'https://docs.test/timeouts',
      'https://docs.test/retries',
    ]);
    expect(hits).toHaveLength(4);
    // The scores stay in the order shown: the sections moved behind are scaled below.
    const scores = hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('gives each hit a fused rank score and its own BM25 match', () => {
    const index = new SectionIndex([section('a', 'Alpha', 'alpha beta'), section('b', 'Beta', 'beta gamma')]);
    const hits = index.search('alpha beta');
    expect(hits[0].section.url).toBe('https://docs.test/a#alpha');
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
    expect(hits[0].match).toBeGreaterThan(hits[1].match);
  });
});

describe('a follow-up question', () => {
  const UNITTEST = 'unittest: unit testing framework';
  const index = new SectionIndex([
    section('unittest', 'Basic example', 'Write a test case class; each method checks one thing.', UNITTEST),
    section('unittest', 'Skipping tests', 'Mark a test with the skip decorator to leave it out.', UNITTEST),
    section('pdb', 'Skip', 'The debugger can skip frames: skip the modules named in skip.'),
    section('csv', 'Reading CSV files', 'The reader reads each row of a CSV file as a list of strings.'),
    section('lambda', 'Lambda expressions', 'A lambda expression makes a small anonymous function.'),
    section('intro', null, FILLER.repeat(3)),
  ]);
  const first = (question: string, earlier?: string) => index.search(question, 5, earlier)[0].section.url;

  it('takes its subject from the earlier question when it refers back to it ("one of them")', () => {
    expect(first('how do I skip one of them?')).toBe('https://docs.test/pdb#skip');
    expect(first('how do I skip one of them?', 'how do I write a unit test')).toBe(
      'https://docs.test/unittest#skipping-tests',
    );
    // A continuation with no pronoun refers back too.
    expect(first('and skipping?', 'how do I write a unit test')).toBe(
      'https://docs.test/unittest#skipping-tests',
    );
  });

  it('is ranked on its own words when it changes the subject', () => {
    const alone = index.search('what is a lambda?', 5).map((hit) => [hit.section.url, hit.score]);
    expect(alone[0][0]).toBe('https://docs.test/lambda#lambda-expressions');
    expect(
      index
        .search('what is a lambda?', 5, 'How do I read a CSV file?')
        .map((hit) => [hit.section.url, hit.score]),
    ).toEqual(alone);
  });

  it("weighs the earlier question's words below the question's own, and reads only its start", () => {
    // "Skip" is the question's; "debugger" the earlier question's: the question's word decides.
    expect(first('does it skip tests?', 'how do I use the debugger')).toBe(
      'https://docs.test/unittest#skipping-tests',
    );
    const long = `how do I go on ${'and on '.repeat(50)} to write a unit test`;
    expect(first('how do I skip one of them?', long)).toBe('https://docs.test/pdb#skip');
  });
});

describe('diversify', () => {
  it('moves the best section of each of the first pages forward, the rest keep their order', () => {
    const hit = (page: string, name: string) => ({ section: section(page, name, name), score: 0, match: 1 });
    const hits = [
      hit('a', 'a1'),
      hit('a', 'a2'),
      hit('b', 'b1'),
      hit('a', 'a3'),
      hit('c', 'c1'),
      hit('b', 'b2'),
    ];
    const order = (list: typeof hits) => list.map((h) => h.section.text);
    expect(order(diversify(hits, 2))).toEqual(['a1', 'b1', 'a2', 'a3', 'c1', 'b2']);
    expect(order(diversify(hits))).toEqual(['a1', 'b1', 'c1', 'a2', 'a3', 'b2']);
    const scored = [6, 5, 4, 3, 2, 1].map((score, i) => ({ ...hits[i], score }));
    expect(diversify(scored, 2).map((h) => h.score)).toEqual([6, 4, 5 * 0.8, 3 * 0.8, 2 * 0.8, 1 * 0.8]);
    expect(diversify([])).toEqual([]);
  });
});

describe('fuseByRank', () => {
  it('adds 1/(60 + rank) over the rankings a section is in', () => {
    const [a, b, c] = ['a', 'b', 'c'].map((name) => ({
      section: section(name, null, name),
      score: 0,
      match: 1,
    }));
    const fused = fuseByRank(
      [
        [a, b],
        [c, b],
      ],
      3,
    );
    expect(fused.map((hit) => hit.section.text)).toEqual(['b', 'a', 'c']);
    expect(fused[0].score).toBeCloseTo(2 / 62);
  });
});

describe("an owner's synonyms as typed and checked", () => {
  it('reads one group per line, members separated by commas, trimmed, blank and repeated ones dropped', () => {
    expect(
      splitSynonyms(
        '# ours\nauto increment,  serial , serial,\n\n , \n  # not this, one\nupsert, on conflict',
      ),
    ).toEqual([
      ['auto increment', 'serial'],
      ['upsert', 'on conflict'],
    ]);
  });

  it('names what is wrong: a lone word, a word no search ranks, too many, not a list', () => {
    expect(synonymProblem([['serial', 'identity']])).toBeNull();
    expect(synonymProblem([['serial']])).toBe(
      'The synonym group "serial" needs at least two words or phrases.',
    );
    expect(synonymProblem([['serial', 'the']])).toBe(
      'The synonym group "serial, the" has "the", which has no word a search ranks.',
    );
    expect(synonymProblem(Array.from({ length: 201 }, () => ['a1', 'b1']))).toBe(
      'At most 200 synonym groups (201 given).',
    );
    expect(synonymProblem(['serial, identity'])).toBe('Each synonym group is a list of words or phrases.');
    expect(synonymProblem([['serial', 'x'.repeat(101)]])).toMatch(/over 100 characters/);
  });
});
