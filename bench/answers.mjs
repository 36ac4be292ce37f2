// npm run bench:answers: does an answer cite the right page of a real manual, and what does it
// send upstream? Serves Debian's python3-doc HTML manual from a local static server, crawls it
// through that server, asks the questions of bench/answers/ through the model agent (with a
// recording fetch in place of a model: the request is measured, nothing is sent anywhere) and
// the demo agent, and prints hit@1, hit@3, hit@5 (the right page among the sources), MRR, the
// request's size, the crawl's and the re-crawl's times.
//
//   node bench/answers.mjs                   the shipped ranking
//   node bench/answers.mjs --engine pg       PostgreSQL full-text search (ts_rank_cd) on the same sections
//   node bench/answers.mjs --boosts 2,2,1    other title, headings, text boosts
//   node bench/answers.mjs --before DIR      an older build's agent (DIR: its service/dist) on the
//                                            same pages as Markdown files, as AGENT_CHAT_DOCS took them
//   node bench/answers.mjs --scale           crawl time of the Python and PostgreSQL manuals as one site
//   node bench/answers.mjs --misses          list the questions that missed: questions.yaml's, or
//                                            the unseen set's with --manual
//   node bench/answers.mjs --final           also the second held-out set (decision 390)
//                                            and the held-out follow-ups (the Python manual's
//                                            follow-up questions, each asked after an earlier one,
//                                            are always run: decision 450)
//   node bench/answers.mjs --manual django   the unseen-manual set instead (decision 415): Django's
//                                            manual (python-django-doc) and bench/answers/django.yaml
//   node bench/answers.mjs --manual postgres the second unseen-manual set (decision 420):
//                                            postgresql-doc-15 and bench/answers/postgres.yaml
//   node bench/answers.mjs --manual pytest   the third (decision 426): python-pytest-doc and
//                                            bench/answers/pytest.yaml, written blind, and its
//                                            follow-ups (pytest-follow-ups.yaml, decision 450)
//   node bench/answers.mjs --exclude /releases/,/_modules/   the crawl keeps these paths out, as an
//                                            owner sets them on the Sources page (decision 416)
//   node bench/answers.mjs --synonyms FILE   an owner's synonyms, as --docs-synonyms reads them
//                                            (decision 422), e.g. bench/answers/postgres.synonyms
//   node bench/answers.mjs --embeddings      also the optional embeddings (decision 290) of a local
//                                            model (bench/embeddings, installed on first use): the
//                                            agents on HybridDocs, and the cosine ranking alone
//     --embedding-chars N                    embed the heading path and the first N characters
//     --semantic-weight 0.5,2                also the fusion with the cosine ranking so weighted
//
// The held-out questions (bench/answers/held-out.yaml) are reported as totals only: they are
// not looked at while tuning. The second held-out set (held-out-second.yaml) is not even run
// without --final: it is measured once, with the ranking as shipped.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { serveFolder } from '../scripts/static-site.mjs';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'bm25' },
    boosts: { type: 'string' },
    before: { type: 'string' },
    scale: { type: 'boolean', default: false },
    misses: { type: 'boolean', default: false },
    final: { type: 'boolean', default: false },
    manual: { type: 'string', default: 'python' },
    exclude: { type: 'string' },
    synonyms: { type: 'string' },
    embeddings: { type: 'boolean', default: false },
    'embedding-chars': { type: 'string' },
    'semantic-weight': { type: 'string' },
  },
});
const service = await import(new URL('../service/dist/index.js', import.meta.url).href);
const here = dirname(new URL(import.meta.url).pathname);

/** The HTML manual of a Debian documentation package, installed when missing (as root). */
function manual(pkg, pattern) {
  const find = () => {
    for (const dir of readdirSync('/usr/share/doc')
      .filter((d) => pattern.test(d))
      .sort())
      if (existsSync(join('/usr/share/doc', dir, 'html', 'index.html')))
        return join('/usr/share/doc', dir, 'html');
    return undefined;
  };
  if (find()) return find();
  if (process.getuid?.() !== 0)
    throw new Error(`${pkg} is not installed: run apt-get install -y ${pkg} as root`);
  console.log(`installing ${pkg}…`);
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', pkg], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return (
    find() ??
    (() => {
      throw new Error(`${pkg} installed no HTML manual`);
    })()
  );
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted.length % 2
    ? sorted[(sorted.length - 1) / 2]
    : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
};

async function crawl(start) {
  const started = performance.now();
  const exclude = values.exclude?.split(',') ?? [];
  const first = await service.crawlSite(start, { maxPages: 10_000, exclude });
  const sections = first.pages.flatMap((page) => page.sections);
  const index = new service.StaticDocs(sections);
  await index.search('warm up');
  const crawled = performance.now() - started;
  const previous = new Map(first.pages.map((page) => [page.url, page]));
  const again = performance.now();
  const second = await service.crawlSite(start, { maxPages: 10_000, previous, exclude });
  const recrawled = performance.now() - again;
  const unchanged = second.pages.filter((page) => page.status === 'unchanged').length;
  return { first, sections, crawled, recrawled, unchanged, second };
}

/** Runs an agent on a question with a recording fetch: its sources and the request's bytes. */
function asker(make) {
  let body = '';
  const fetch = async (_url, init) => {
    body = String(init.body);
    return new Response(
      'data: {"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
      {
        headers: { 'Content-Type': 'text/event-stream' },
      },
    );
  };
  const agent = make(fetch);
  return async (question, earlier) => {
    body = '';
    const sources = [];
    for await (const out of agent.answer({
      message: question,
      history: earlier ? conversation(earlier) : [],
      tools: [],
      rounds: [],
      partial: '',
      signal: new AbortController().signal,
    }))
      if (out.type === 'sources') sources.push(...out.sources);
    return { pages: sources.map((s) => s.source_url.split('#')[0]), bytes: Buffer.byteLength(body) };
  };
}

/** A thread's history before a follow-up: the earlier question, and an answer to it. */
const conversation = (earlier) =>
  [
    ['user', earlier],
    ['assistant', 'ok'],
  ].map(([role, content], i) => ({
    id: `m${i}`,
    role,
    content,
    sources: [],
    createdAt: i,
    updatedAt: i,
    status: 'done',
    toolCalls: [],
    activity: [],
    uncertain: false,
  }));

/** PostgreSQL's full-text search over the same sections, on PGlite: the pages of the best sections. */
async function pgAsker(sections) {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = new PGlite();
  await db.exec(`CREATE TABLE s (id int, title text, headings text, body text, tsv tsvector)`);
  for (let i = 0; i < sections.length; i += 500) {
    const batch = sections.slice(i, i + 500);
    await db.query(
      `INSERT INTO s (id, title, headings, body)
       SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[])`,
      [
        batch.map((_, j) => i + j),
        batch.map((s) => s.title),
        batch.map((s) => s.headings.join('\n')),
        batch.map((s) => s.text),
      ],
    );
  }
  await db.exec(`UPDATE s SET tsv = setweight(to_tsvector('english', title), 'A') ||
    setweight(to_tsvector('english', headings), 'B') || setweight(to_tsvector('english', body), 'D');
    CREATE INDEX ON s USING gin (tsv)`);
  return async (question) => {
    // plainto_tsquery joins the words with AND; a visitor's question needs any of them (OR).
    const { rows } = await db.query(
      `WITH q AS (SELECT replace(plainto_tsquery('english', $1)::text, ' & ', ' | ') AS text)
       SELECT id FROM s, q WHERE q.text <> '' AND tsv @@ q.text::tsquery
       ORDER BY ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', tsv, q.text::tsquery, 1) DESC LIMIT 40`,
      [question],
    );
    const pages = [];
    for (const { id } of rows) {
      const page = sections[id].pageUrl;
      if (!pages.includes(page) && pages.length < 5) pages.push(page);
    }
    return { pages, bytes: 0 };
  };
}

/** The first `count` distinct pages of a ranking, as the sources list them. */
function pagesOf(hits, count = 5) {
  const pages = [];
  for (const { section } of hits)
    if (!pages.includes(section.pageUrl) && pages.length < count) pages.push(section.pageUrl);
  return pages;
}

/** Seconds of CPU a process has used (Linux's /proc): the embedding server's cost per section. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / Number(execFileSync('getconf', ['CLK_TCK']));
}

/**
 * The vector of each text through `embedder`, cached under the OS temp folder in a file named by
 * the model and `digest` (the sections as crawled: the manual's version), each vector by its
 * text's hash, so a second run embeds nothing and an interrupted one resumes. The model's files
 * for other versions are read too: a changed manual embeds only its changed sections. A record:
 * 20 bytes of SHA-1, the dimension (uint32), the floats.
 */
async function cachedVectors(embedder, texts, digest, serverPid) {
  const dir = join(tmpdir(), 'agent-chat-bench-embeddings');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${embedder.model}-${digest}.bin`);
  const key = (text) => createHash('sha1').update(text).digest();
  const cache = new Map();
  for (const name of readdirSync(dir).filter((name) => name.startsWith(`${embedder.model}-`))) {
    const buffer = await readFile(join(dir, name));
    for (let at = 0; at + 24 <= buffer.length;) {
      const dim = buffer.readUInt32LE(at + 20);
      const end = at + 24 + dim * 4;
      if (end > buffer.length) break;
      cache.set(
        buffer.toString('hex', at, at + 20),
        new Float32Array(buffer.buffer.slice(buffer.byteOffset + at + 24, buffer.byteOffset + end)),
      );
      at = end;
    }
  }
  const missing = [...new Set(texts)].filter((text) => !cache.has(key(text).toString('hex')));
  if (missing.length) {
    console.log(
      `embedding ${missing.length} of ${texts.length} sections (${cache.size} vectors cached in ${dir})…`,
    );
    const started = performance.now();
    const cpu = cpuSeconds(serverPid);
    for (let i = 0; i < missing.length; i += 256) {
      const chunk = missing.slice(i, i + 256);
      const vectors = await embedder.embed(chunk);
      const records = chunk.map((text, j) => {
        const head = Buffer.alloc(24);
        key(text).copy(head);
        head.writeUInt32LE(vectors[j].length, 20);
        cache.set(key(text).toString('hex'), vectors[j]);
        return Buffer.concat([
          head,
          Buffer.from(vectors[j].buffer, vectors[j].byteOffset, vectors[j].byteLength),
        ]);
      });
      await appendFile(file, Buffer.concat(records));
      const done = i + chunk.length;
      if (done % 2048 === 0 || done === missing.length)
        console.log(`  ${done} / ${missing.length} in ${seconds(performance.now() - started)}`);
    }
    const wall = performance.now() - started;
    const used = cpuSeconds(serverPid) - cpu;
    console.log(
      `embedded ${missing.length} sections in ${seconds(wall)}: ${(wall / missing.length).toFixed(1)} ms and ` +
        `${((used * 1000) / missing.length).toFixed(1)} ms of CPU per section (mean ${Math.round(
          missing.reduce((sum, text) => sum + text.length, 0) / missing.length,
        )} characters), load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
  } else console.log(`all ${texts.length} section vectors cached in ${file}`);
  return texts.map((text) => cache.get(key(text).toString('hex')));
}

/**
 * The optional embeddings (decision 290) of a local model: bench/embeddings/server.mjs (its
 * packages installed on first use) serves `/v1/embeddings`; the sections are embedded through
 * the service's own Embedder and embeddingText and ranked by its HybridDocs, the chat's path.
 * Returns the askers: the two agents on HybridDocs, then the cosine ranking alone and the
 * lexical ranking alone as pages (no agent), so the fusion's worth shows beside its parts.
 */
async function embeddingAskers(sections, base) {
  const folder = join(here, 'embeddings');
  if (!existsSync(join(folder, 'node_modules'))) {
    console.log('installing the local embedding model (bench/embeddings)…');
    execFileSync('npm', ['ci', '--prefix', folder, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  }
  const server = spawn(process.execPath, [join(folder, 'server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The bench ends when its work does: the server and its pipe do not hold it open.
  server.unref();
  server.stdout.unref();
  process.on('exit', () => server.kill());
  const baseUrl = await new Promise((ready, fail) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /listening (\S+)/.exec(out)?.[1];
      if (url) ready(url);
    });
    server.on('exit', (code) => fail(new Error(`the embedding server exited (${code})`)));
  });
  const { data } = await (await fetch(`${baseUrl}/models`)).json();
  // Batches of 16 keep a request well under the timeout on a loaded CPU.
  const embedder = new service.Embedder({ baseUrl, model: data[0].id, batch: 16, timeoutMs: 600_000 });
  const digest = createHash('sha256')
    .update(JSON.stringify(sections.map((s) => [s.url.slice(base.length), s.title, s.headings, s.text])))
    .digest('hex')
    .slice(0, 16);
  const chars = values['embedding-chars'] && Number(values['embedding-chars']);
  const text = chars
    ? (s) => `${[s.title, ...s.headings].join(' › ')}\n\n${s.text}`.slice(0, chars)
    : service.embeddingText;
  const vectors = await cachedVectors(embedder, sections.map(text), digest, server.pid);
  const lexical = new service.SectionIndex(sections);
  const docs = new service.HybridDocs(lexical, sections, vectors, embedder, (error) => {
    throw error;
  });
  const cosine = async (question) =>
    service.nearest((await embedder.embed([question]))[0], sections, vectors, 100);
  const name = `${embedder.model}${chars ? `, ${chars} characters` : ''}`;
  return [
    [
      `model agent, hybrid (${name})`,
      asker(
        (fetch) => new service.OpenAiAgent({ baseUrl: 'http://model.invalid/v1', model: 'm', docs, fetch }),
      ),
    ],
    [`demo agent, hybrid`, asker(() => new service.DemoAgent({ docs }))],
    [`hybrid, ranking`, async (question) => ({ pages: pagesOf(await docs.search(question, 100)), bytes: 0 })],
    ...(values['semantic-weight'] ?? '')
      .split(',')
      .filter(Boolean)
      .map((weight) => [
        `hybrid, cosine ×${weight}, ranking`,
        async (question) => ({
          pages: pagesOf(weightedFusion(lexical.rank(question, 100), await cosine(question), Number(weight))),
          bytes: 0,
        }),
      ]),
    [`vector alone, ranking`, async (question) => ({ pages: pagesOf(await cosine(question)), bytes: 0 })],
    [
      `lexical alone, ranking`,
      async (question) => ({ pages: pagesOf(lexical.search(question, 100)), bytes: 0 }),
    ],
  ];
}

/** Reciprocal rank fusion (k = 60, as the service's) with the second ranking weighted. */
function weightedFusion(first, second, weight) {
  const fused = new Map();
  for (const [ranking, w] of [
    [first, 1],
    [second, weight],
  ])
    ranking.forEach((hit, rank) => {
      const key = `${hit.section.url}\n${hit.section.text}`;
      fused.set(key, { section: hit.section, score: (fused.get(key)?.score ?? 0) + w / (60 + rank + 1) });
    });
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

/** The same pages as a folder of Markdown files, as an older AGENT_CHAT_DOCS read them. */
async function markdownFolder(pages, base) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-answers-'));
  for (const page of pages) {
    const path = page.url.slice(base.length + 1) || 'index.html';
    let text = `# ${page.title}\n`;
    let last = '';
    for (const section of page.sections) {
      const heading = section.headings.join(' › ');
      if (heading && heading !== last)
        text += `\n${'#'.repeat(Math.min(6, section.headings.length + 1))} ${section.headings.at(-1)}\n`;
      last = heading;
      text += `\n${section.text}\n`;
    }
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, `${path}.md`), text);
  }
  return dir;
}

async function evaluate(name, ask, questions, base) {
  const rows = [];
  for (const { question, urls, earlier } of questions) {
    const { pages, bytes } = await ask(question, earlier);
    const relative = pages.map((page) => page.slice(base.length + 1));
    const rank = relative.findIndex((page) => urls.includes(page));
    rows.push({ question, urls, relative, rank, bytes });
  }
  const n = rows.length;
  const hit = (k) => rows.filter((r) => r.rank >= 0 && r.rank < k).length;
  const bytes = rows.map((r) => r.bytes);
  return {
    name,
    n,
    hit1: hit(1),
    hit3: hit(3),
    hit5: hit(5),
    mrr: rows.reduce((sum, r) => sum + (r.rank >= 0 ? 1 / (r.rank + 1) : 0), 0) / n,
    medianBytes: median(bytes),
    maxBytes: Math.max(...bytes),
    rows,
  };
}

const line = (r) =>
  `${r.name.padEnd(34)} hit@1 ${String(r.hit1).padStart(2)}/${r.n}  hit@3 ${String(r.hit3).padStart(2)}/${r.n}  ` +
  `among sources ${String(r.hit5).padStart(2)}/${r.n}  MRR ${r.mrr.toFixed(2)}` +
  (r.maxBytes ? `  request median ${kb(r.medianBytes)}, max ${kb(r.maxBytes)}` : '');

if (values.scale) {
  const python = manual('python3-doc', /^python3(\.\d+)?$/);
  const postgres = manual('postgresql-doc-15', /^postgresql-doc-\d+$/);
  const site = await serveFolder(
    { '/python/': python, '/postgresql/': postgres },
    {
      routes: {
        '/': (_req, res) =>
          res
            .writeHead(200, { 'Content-Type': 'text/html' })
            .end(
              '<title>Manuals</title><h1>Manuals</h1><a href="python/index.html">Python</a> <a href="postgresql/index.html">PostgreSQL</a>',
            ),
      },
    },
  );
  try {
    const run = await crawl(`${site.url}/`);
    console.log(
      `Python + PostgreSQL manuals as one site: ${run.first.pages.length} pages, ${run.sections.length} sections, ` +
        `${run.first.failures.length} failures; crawled and indexed in ${seconds(run.crawled)}; ` +
        `re-crawled with no changes in ${seconds(run.recrawled)} (${run.unchanged} unchanged)`,
    );
  } finally {
    await site.close();
  }
  process.exit(0);
}

/**
 * The manual and its question sets. Python's: the tuning set (its misses listed by --misses), the
 * held-out totals and, with --final, the second held-out set. Django's (decision 415),
 * PostgreSQL's (decision 420) and pytest's (decision 426) are manuals the ranking was never tuned
 * on: each one set is held out by construction, run alone.
 */
const UNSEEN = {
  django: ['python-django-doc', /^python-django-doc$/, 'django.yaml'],
  postgres: ['postgresql-doc-15', /^postgresql-doc-\d+$/, 'postgres.yaml'],
  pytest: ['python-pytest-doc', /^python-pytest-doc$/, 'pytest.yaml', 'pytest-follow-ups.yaml'],
};
function questionSets(name) {
  const read = (file) => parse(readFileSync(join(here, 'answers', file), 'utf8'));
  if (name in UNSEEN) {
    const [pkg, pattern, file, followUps] = UNSEEN[name];
    return {
      root: manual(pkg, pattern),
      questions: read(file),
      heldOut: null,
      secondHeldOut: null,
      followUps: followUps ? read(followUps) : null,
      followUpsHeldOut: null,
    };
  }
  if (name !== 'python')
    throw new Error(`--manual ${name}: the manuals are python, ${Object.keys(UNSEEN).join(', ')}`);
  return {
    root: manual('python3-doc', /^python3(\.\d+)?$/),
    questions: read('questions.yaml'),
    heldOut: read('held-out.yaml'),
    secondHeldOut: values.final ? read('held-out-second.yaml') : null,
    followUps: read('follow-ups.yaml'),
    followUpsHeldOut: values.final ? read('follow-ups-held-out.yaml') : null,
  };
}

const { root, questions, heldOut, secondHeldOut, followUps, followUpsHeldOut } = questionSets(values.manual);
const site = await serveFolder(root);
try {
  const run = await crawl(`${site.url}/index.html`);
  console.log(
    `${root}: ${run.first.pages.length} pages, ${run.sections.length} sections, ${run.first.failures.length} failures, ${run.first.excluded} excluded; ` +
      `crawled and indexed in ${seconds(run.crawled)}; re-crawled with no changes in ${seconds(run.recrawled)} ` +
      `(${run.unchanged} of ${run.second.pages.length} unchanged)`,
  );
  const base = site.url;
  const askers = [];
  if (values.before) {
    const old = await import(resolve(values.before, 'index.js'));
    const folder = await markdownFolder(run.first.pages, base);
    const docs = await old.loadMarkdownDocs(folder, base);
    askers.push([
      `before (${values.before})`,
      asker((fetch) => new old.OpenAiAgent({ baseUrl: 'http://model.invalid/v1', model: 'm', docs, fetch })),
    ]);
    process.on('exit', () => void rm(folder, { recursive: true, force: true }));
  } else if (values.engine === 'pg') askers.push(['PostgreSQL ts_rank_cd', await pgAsker(run.sections)]);
  else {
    const [title, headings, text] = (values.boosts ?? '').split(',').map(Number);
    const boosts = values.boosts ? { title, headings, text } : undefined;
    // An owner's synonyms file, as --docs-synonyms reads it (decision 422): configuration, reported apart.
    const vocabulary = values.synonyms
      ? new service.Vocabulary(service.splitSynonyms(readFileSync(values.synonyms, 'utf8')))
      : undefined;
    const docs = new service.StaticDocs(run.sections, boosts, vocabulary);
    askers.push([
      `model agent, BM25${values.boosts ? ` ${values.boosts}` : ''}${vocabulary ? `, ${vocabulary.size} synonym groups` : ''}`,
      asker(
        (fetch) => new service.OpenAiAgent({ baseUrl: 'http://model.invalid/v1', model: 'm', docs, fetch }),
      ),
    ]);
    askers.push(['demo agent', asker(() => new service.DemoAgent({ docs }))]);
    if (values.embeddings) askers.push(...(await embeddingAskers(run.sections, base)));
  }
  for (const [name, ask] of askers) {
    const main = await evaluate(`${name}`, ask, questions, base);
    console.log(line(main));
    if (heldOut) console.log(line(await evaluate(`${name}, held out`, ask, heldOut, base)));
    if (secondHeldOut)
      console.log(line(await evaluate(`${name}, second held out`, ask, secondHeldOut, base)));
    if (followUps) {
      const leaning = await evaluate(
        `${name}, follow-ups`,
        ask,
        followUps.filter((q) => !q.subject),
        base,
      );
      const switching = await evaluate(
        `${name}, new subject`,
        ask,
        followUps.filter((q) => q.subject),
        base,
      );
      console.log(line(leaning));
      console.log(line(switching));
      if (values.misses)
        for (const r of [...leaning.rows, ...switching.rows].filter((r) => r.rank !== 0))
          console.log(
            `  ${r.rank < 0 ? 'miss' : `#${r.rank + 1} `} ${r.question}  →  ${r.relative.slice(0, 3).join(', ')}`,
          );
    }
    if (followUpsHeldOut) {
      const sets = [followUpsHeldOut.filter((q) => !q.subject), followUpsHeldOut.filter((q) => q.subject)];
      console.log(line(await evaluate(`${name}, follow-ups held out`, ask, sets[0], base)));
      console.log(line(await evaluate(`${name}, new subject held out`, ask, sets[1], base)));
    }
    if (values.misses)
      for (const r of main.rows.filter((r) => r.rank !== 0))
        console.log(
          `  ${r.rank < 0 ? 'miss' : `#${r.rank + 1} `} ${r.question}  →  ${r.relative.slice(0, 3).join(', ')}`,
        );
  }
} finally {
  await site.close();
}
