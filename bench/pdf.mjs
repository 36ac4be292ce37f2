// npm run bench:pdf: what reading a real PDF manual costs the crawler, and whether a search finds a
// page in it. Serves Debian's doxygen manual (doxygen-doc: a LaTeX-made PDF of 336 pages with
// bookmarks, 1.5 MB; installed when missing, as root) from a local static server, crawls it
// through that server in a child process of its own (so its peak memory is the PDF's, not the
// bench's), and prints pages, sections, seconds, the peak RSS, and the first sections a few
// questions find.
//
//   node bench/pdf.mjs                  the doxygen manual
//   node bench/pdf.mjs --file FILE.pdf  another PDF (a .pdf.gz is unpacked first)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { serveFolder } from '../scripts/static-site.mjs';

const DOXYGEN = '/usr/share/doc/doxygen/doxygen_manual.pdf';
/** Questions on the doxygen manual, each with the PDF pages that answer it (read, not guessed). */
const QUESTIONS = [
  ['How do I install doxygen from source on Linux?', [25, 26]],
  ['What does the EXTRACT_ALL option do?', [141]],
  ['How do I document a member of a C++ class after it?', [38]],
];

const { values } = parseArgs({ options: { file: { type: 'string' }, child: { type: 'string' } } });

if (values.child) {
  // The crawl alone, in its own process: its figures are printed as one JSON line.
  const service = await import(new URL('../service/dist/index.js', import.meta.url).href);
  const started = performance.now();
  const result = await service.crawlSite(values.child, { maxPages: 10 });
  const seconds = (performance.now() - started) / 1000;
  const page = result.pages[0];
  const index = new service.StaticDocs(page?.sections ?? []);
  const found = [];
  for (const [question] of QUESTIONS) {
    const hits = await index.search(question, 3);
    found.push(hits.map((hit) => ({ url: hit.section.url, headings: hit.section.headings })));
  }
  console.log(
    JSON.stringify({
      title: page?.title,
      failures: result.failures,
      pdfPages: new Set(page?.sections.map((s) => s.url)).size,
      sections: page?.sections.length ?? 0,
      seconds,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      found,
    }),
  );
  process.exit(0);
}

function doxygenManual() {
  if (existsSync(DOXYGEN)) return DOXYGEN;
  if (process.getuid?.() !== 0)
    throw new Error('doxygen-doc is not installed: run apt-get install -y doxygen-doc as root');
  console.log('installing doxygen-doc…');
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'doxygen-doc'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return DOXYGEN;
}

const file = values.file ?? doxygenManual();
const root = await mkdtemp(join(tmpdir(), 'bench-pdf-'));
const name = basename(file).replace(/\.gz$/, '');
const bytes = await readFile(file);
await writeFile(join(root, name), file.endsWith('.gz') ? gunzipSync(bytes) : bytes);
const site = await serveFolder({ '/manuals/': root });
try {
  const url = `${site.url}/manuals/${encodeURIComponent(name)}`;
  // The crawl runs in a child while this process serves the file.
  const child = await new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [new URL(import.meta.url).pathname, '--child', url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (chunk) => (out += chunk));
    proc.on('error', reject);
    proc.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}`))));
  });
  console.log(`${name}: ${(bytes.length / 1e6).toFixed(1)} MB${file.endsWith('.gz') ? ' gzipped' : ''}`);
  console.log(`title: ${child.title}`);
  if (child.failures.length) console.log('failures:', child.failures);
  console.log(`PDF pages with text: ${child.pdfPages}, sections: ${child.sections}`);
  console.log(`crawl: ${child.seconds.toFixed(1)} s, peak RSS ${Math.round(child.peakRssMb)} MB`);
  if (!values.file)
    QUESTIONS.forEach(([question, expected], i) => {
      const hits = child.found[i];
      const rank = hits.findIndex((hit) => expected.includes(Number(/#page=(\d+)$/.exec(hit.url)?.[1])));
      const pages = expected.map((n) => `#page=${n}`).join(' or ');
      console.log(`\n${question} (${pages}: ${rank < 0 ? 'not in the first 3' : `#${rank + 1}`})`);
      for (const hit of hits) console.log(`  ${hit.url.slice(url.length)}  ${hit.headings.join(' › ')}`);
    });
} finally {
  await site.close();
  await rm(root, { recursive: true, force: true });
}
