// npm run bench:pdf: what reading a real PDF manual costs the crawler, and whether a search finds a
// page in it. Serves Debian's doxygen manual (doxygen-doc: a LaTeX-made PDF of 336 pages with
// bookmarks, 1.5 MB; installed when missing, as root) from a local static server, crawls it
// through that server in a child process of its own (so its peak memory is the PDF's, not the
// bench's), and prints pages, sections, seconds, the peak RSS, and the first sections a few
// questions find.
//
//   node bench/pdf.mjs                  the doxygen manual
//   node bench/pdf.mjs --file FILE.pdf  another PDF (a .pdf.gz is unpacked first)
//   node bench/pdf.mjs --many 50        a site of 50 small PDFs (3 pages each): the crawl's wall
//                                       and CPU time (every thread's), with the load averages
//   BENCH_DIST=DIR                      another build's service/dist (to compare before and after)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
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

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    child: { type: 'string' },
    many: { type: 'string' },
    'max-pages': { type: 'string' },
  },
});
const DIST = process.env.BENCH_DIST ?? new URL('../service/dist', import.meta.url).pathname;

if (values.child) {
  // The crawl alone, in its own process: its figures are printed as one JSON line.
  const service = await import(`${DIST}/index.js`);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await service.crawlSite(values.child, { maxPages: Number(values['max-pages'] ?? 10) });
  const seconds = (performance.now() - started) / 1000;
  // The process's CPU: every thread's, pdf.js's threads included.
  const { user, system } = process.cpuUsage(cpu);
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
      cpuSeconds: (user + system) / 1e6,
      pdfs: result.pages.filter((p) => p.url.endsWith('.pdf') && p.sections.length).length,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      found,
    }),
  );
  process.exit(0);
}

/** A small PDF of `pages` pages of a sentence each, with its cross-reference table. */
function smallPdf(n, pages = 3) {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const kids = [];
  for (let page = 1; page <= pages; page++) {
    // Each page its own words: a line that differs from page to page by its numbers alone is a running head.
    const words = ['Installing', 'Configuring the server for', 'Upgrading and rolling back'][page % 3];
    const stream = `BT /F1 12 Tf 72 720 Td (${words} model ${n}.) Tj ET`;
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length} 0 R >>`,
    );
    kids.push(`${objects.length} 0 R`);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`;
  let text = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = text.length;
    text += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  return `${text}xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${text.length}\n%%EOF\n`;
}

/** Crawls `url` in a child process; its figures. */
function crawlInChild(url, maxPages) {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [new URL(import.meta.url).pathname, '--child', url, '--max-pages', String(maxPages)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    proc.stdout.on('data', (chunk) => (out += chunk));
    proc.on('error', reject);
    proc.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}`))));
  });
}

if (values.many) {
  const count = Number(values.many);
  const root = await mkdtemp(join(tmpdir(), 'bench-pdfs-'));
  await writeFile(
    join(root, 'index.html'),
    `<title>Manuals</title><main><p>The manuals.</p>${Array.from({ length: count }, (_, i) => `<a href="m${i}.pdf">Manual ${i}</a>`).join(' ')}</main>`,
  );
  for (let i = 0; i < count; i++) await writeFile(join(root, `m${i}.pdf`), smallPdf(i));
  const site = await serveFolder({ '/manuals/': root });
  try {
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(1))
        .join(' ');
    const before = load();
    const child = await crawlInChild(`${site.url}/manuals/`, count + 1);
    console.log(
      `${count} PDFs of 3 pages: ${child.pdfs} read, ${child.seconds.toFixed(2)} s wall, ${child.cpuSeconds.toFixed(2)} s CPU, peak RSS ${Math.round(child.peakRssMb)} MB; load ${before} → ${load()}`,
    );
    if (child.failures.length)
      console.log(`${child.failures.length} failures, the first:`, child.failures[0]);
  } finally {
    await site.close();
    await rm(root, { recursive: true, force: true });
  }
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
  const child = await crawlInChild(url, 10);
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
