// Size budget for the browser bundles, and proof that no server code reached them. Also prints
// what the markdown engine alone costs, bundled and minified the way the IIFE bundles it.
// Usage: node scripts/size.mjs [--max-iife=BYTES] [--max-part=BYTES] [--max-es=BYTES] [--max-loader=BYTES]
//   [--max-es-root=BYTES]   (gzip bytes)
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { markedLexerOnly } from './marked-lexer-only.mjs';

const KB = 1000;
const args = Object.fromEntries(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=')));
// Locales load on demand, one at a time (agent-chat.locale.*.js): measured on their own row.
const isLocale = (f) => /^agent-chat\.locale\.\w+\.js$/.test(f);
// The classic script's parts (agent-chat.part.*.js), each loaded when first needed: their own row.
const isPart = (f) => /^agent-chat\.part\.[\w.-]+\.js$/.test(f);
// So does the public session's proof of work, for pages of a public integration only (decision 360),
// and the attachment view (agent-chat.attachments.js), the first time a visitor attaches.
const PUBLIC_SESSION = 'agent-chat.public-session.js';
const ATTACHMENTS = 'agent-chat.attachments.js';
const es = readdirSync('dist')
  .filter(
    (f) =>
      f.endsWith('.js') &&
      !f.endsWith('.iife.js') &&
      !isLocale(f) &&
      !isPart(f) &&
      f !== PUBLIC_SESSION &&
      f !== ATTACHMENTS,
  )
  .map((f) => `dist/${f}`);
const largestPart = readdirSync('dist')
  .filter(isPart)
  .map((f) => `dist/${f}`)
  .sort((a, b) => gzipSync(readFileSync(b)).length - gzipSync(readFileSync(a)).length)[0];
const largestLocale = readdirSync('dist')
  .filter(isLocale)
  .map((f) => `dist/${f}`)
  .sort((a, b) => gzipSync(readFileSync(b)).length - gzipSync(readFileSync(a)).length)[0];
/** The ES root and the chunks it imports statically: what a page pays before the element is fetched. */
const esFirst = [
  'dist/agent-chat.js',
  ...[...readFileSync('dist/agent-chat.js', 'utf8').matchAll(/from\s*"\.\/([\w.-]+\.js)"/g)].map(
    (m) => `dist/${m[1]}`,
  ),
];
const bundles = [
  // Decision 107: 45 KB held the markdown change; the redesign and the agent features moved it.
  // Decision 224: the start screen, tool cards, the More menu and the steps line moved it again;
  // decision 119: continuity (owner binding, tabs, chunked writes, message blocks) by 2 KB more;
  // decision 232: a refused origin in words for the visitor and a warning for the owner (58 B);
  // decision 277: sessionRequestHeaders, for CMS endpoints that need a nonce or CSRF token (83 B);
  // decision 267: the widget's parts in their own classes (issue 25, +173 B after decision 266);
  // decision 331: the markdown engine is a part loaded on demand (61.8 -> 45.4 KB);
  // decision 341: the compact start screen, code shadows and Wrap lines (+0.5 KB) fit in it;
  // decision 360: public sessions' token source and the visitor's words for their refusals;
  // decision 378: files in a question, their state, button, paste and drop (the view is a part);
  // decision 293: a source's section under its title (96 B);
  // decision 443: drafts kept at pagehide in sessionStorage, so a reload loses no typing (313 B);
  // decision 446: a public integration's Conversations say the site keeps none (55 B);
  // decision 449: the focus kept in the panel when its control goes (196 B);
  // decision 452: the stash keeps the outbox and the last question too (260 B);
  // decision 454: each question's Idempotency-Key, and a cut-off question sent again (322 B);
  // decision 470: one more try after a draining instance's 503 (120 B);
  // decision 490: a row's label aligned as its row in a right-to-left panel (42 B);
  // decision 493: a question resent after a reload reads "sending" from the start (71 B);
  // decision 484: the launcher, a question and a vote drawn in forced colours (43 B);
  // decision 503: Tab kept in a floating panel while the Conversations list covers it (79 B);
  // decision 520: a public visitor's past conversations kept on their device (738 B; ES 784 B);
  // decision 515: a failed answer read back reads as it did live (514), and the Conversations
  // list's focus on its loading status (16 B: its words are in the list's own part);
  // decision 529: the Conversations search's new English words (68 B; its code is in the list's part);
  // decision 523: kept conversations name their chunks, kept rows merge across tabs (764 B);
  // decision 534: a thread deleted while the list loads stays deleted (22 B); decision 560: the
  // host's text styles reset, so a page's footer or hero does not restyle the widget (101 B);
  // decision 561: the floating launcher and panel in the top layer (118 B); decision 562: a refused
  // Copy answer says so (28 B); decision 563: keys typed into its fields stay in the widget (106 B);
  // decisions 551 and 552: a reattach that cannot reach the service tries again, and one
  // agent-chat-error for an answer whose connection fails (30 B together).
  // decision 545: a public session's `-`, one visitor under '' or `-`, the search emptied on close (61 B);
  // decision 565: the panel's state in the tab (49 B); decision 581: a write refused over another
  // owner's record (32 B); decision 569: the chat behind a page's modal dialog until it closes
  // (566), an answer that says it waits for a connection (567) (193 B together); decision 585: a
  // deletion said and refocused, rows in words, files said attached or removed, the vote refocused (407 B); decision 588:
  // "Reconnecting…" between reattach attempts, a gateway error as an attempt (587) (41 B); decision
  // 592: New conversation takes a covering list away (591) (34 B); decision 594: a refused delete
  // or rename said in the list (593) (34 B); decision 596: a proxy's 502 or 504 read as unreachable
  // (595) (22 B); decision 598: a row's title as typed (597) (-23 B); decision 609: the full-screen
  // panel on a phone on its side (608) (11 B); decision 635: a tab's own wipe ordered against the
  // device's heads (634) (95 B); decision 637: no session for a read that ends after the widget
  // left the page (636) (14 B); decision 639: another tab's later list over one the service
  // answered here (638) (41 B); decision 647: back online, a queued question sent once across
  // tabs, and by a load that finds it (646) (53 B); decision 661: the message box the chosen
  // conversation's from the click (659) (139 B), a queued question claimed on the device where
  // there are no Web Locks (660) (241 B); decision 666: a question's files taken from the tray
  // only once it goes (664) (22 B); decision 668: the proof-of-work part's new name (667) (2 B);
  // decision 672: a question whose files are gone says so and Retry sends its text alone (671),
  // and a failure's names read back after a reload (239 B); decision 676: a reloaded tab's own
  // claim and an `online` kept while the tab lets go of the lock (673), nothing empty queued and
  // files gone in the plural (674) (182 B); decision 686: 685's votes, queued bubbles, tail right
  // to left and list rows (91 B); decision 696: a reload's closed list, a 404 that names no thread
  // as the page's setup (694), the list after the session (695), the session endpoint's detail in
  // the console (693) (205 B); decision 701: the message box as one field holding its buttons
  // (700) (43 B); decision 728: the message box's field a part (726) (16 B), the proof-of-work part's
  // load failure said to the site owner (727) (67 B), the session's and the root's logic moved
  // to modules beside them (-40 B), the list's words off their ring (729) (2 B); decision 731: a
  // question sent without its Idempotency-Key to a service whose CORS refuses the header (730) (125 B);
  // decision 713: Escape in the reasons (711), "Thinking…" and a tool's wait said (712), no second
  // banner, whole list numbers (146 B); decision 736: text fields' edges at 3:1 (734) (11 B), a
  // source's title wrapped (735) (8 B), the reasons as chips (736) (63 B); decision 777: a turned
  // phone keeps the reader at the latest (775) (44 B), a queued question shows its files (776)
  // (82 B), a question another tab is sending reads sending (778) (38 B); decision 789: a
  // question sent held at the top of the view (787) (419 B), the feedback form into view (788)
  // (31 B); decision 802: a visitor's words sent without a NUL the service refuses (801) (24 B).
  // Decision 812: a short panel's compact header, one-line message box and disclaimer (810, 811)
  // (132 B); decision 818: a public site's files refused for the day, in the visitor's words (817) (60 B).
  {
    file: 'dist/agent-chat.iife.js',
    label: 'IIFE (script tag, first load)',
    budget: Number(args['max-iife'] ?? 56.091 * KB),
  },
  // Decision 331: what the classic script fetches beside itself when a visitor needs it.
  { file: largestPart, label: 'IIFE part, largest (on demand)', budget: Number(args['max-part'] ?? 18 * KB) },
  // What a bundler pulls in from the ES root: the loader, the DOM-free API, the element chunk.
  // Decision 331: the launcher's names in 15 languages (0.45 KB) and the markdown part's seams;
  // decision 341: the compact start screen, code shadows and Wrap lines (0.5 KB), and the
  // Conversations list's own chunk (its seams, 1.2 KB: what a bundler may pull, not a first load);
  // decision 360: public sessions' token source and refusals' words (0.6 KB);
  // decision 378: files in a question (state, uploads in the shared client, the composer's button);
  // decision 293: a source's section under its title (59 B); decision 317: answers that never
  // throw (0.3 KB); decision 406: the streaming pace and the markdown end counted once (0.15 KB);
  // decision 443: drafts kept at pagehide in sessionStorage (332 B); decision 446: a public
  // integration's Conversations say the site keeps none (79 B); decision 449: the focus kept in
  // the panel when its control goes (232 B); decision 452: the outbox and the last question in
  // the stash (248 B); decision 454: the Idempotency-Key and the resend after a reload (269 B);
  // decision 490: a row's label aligned as its row in a right-to-left panel (63 B);
  // decision 493: a question resent after a reload reads "sending" from the start (83 B);
  // decision 484: the launcher, a question and a vote drawn in forced colours (43 B);
  // decision 494: the loader's stand-in launcher ringed in forced colours (20 B);
  // decision 503: the Conversations list's focus on its words, and Tab kept round it (158 B);
  // decision 515: a failed answer read back reads as it did live (514, 29 B), and the list's focus
  // on its loading status, then where it starts once the threads come (76 B);
  // decision 533: the loader's failed fetch of the element tried again (127 B); decision 529: the
  // Conversations search's focus, outcome, Clear search and keys, in the list's chunk (781 B); decision 523: kept
  // conversations name their chunks, kept rows merge across tabs (894 B); decision 534: a thread
  // deleted while the list loads stays deleted (19 B); decision 560: the host's text styles reset (82 B);
  // decision 561: the floating launcher and panel in the top layer, the stand-in's too (197 B);
  // decision 562: a refused Copy answer says so (34 B); decision 563: typed keys stay inside (115 B);
  // decisions 551 and 552: a reattach that cannot reach the service tries again, and one
  // agent-chat-error for an answer whose connection fails (30 B together).
  // decision 545: a public session's `-`, one visitor under '' or `-`, the search emptied on close (91 B);
  // decision 565: the panel's state in the tab (25 B); decision 581: a write refused over another
  // owner's record (41 B); decision 573: a delete confirmation stays an item of its list (9 B);
  // decision 569: 566 and 567 (180 B); decision 585: 582, 583 and 584 (723 B);
  // decision 588: 587 (45 B); decision 592: 591 (38 B); decision 594: 593 (89 B);
  // decision 596: 595 (16 B); decision 598: 597 (-18 B); decision 609: 608 (10 B);
  // decision 635: 634 (104 B); decision 637: 636 (7 B);
  // decision 639: 638 (52 B); decision 647: 646 (55 B); decision 661: 659 (137 B) and 660 (257 B);
  // decision 666: 664 (19 B); decision 672: 671 and the read-back (224 B);
  // decision 676: 673 and 674 (165 B); decision 686: 685 (114 B); decision 696: 693, 694, 695
  // and a reload's closed list (184 B); decision 701: 700 (32 B); decision 728: 726 (15 B), 727
  // (68 B), the logic moved to modules beside the session and the root (44 B), 729 (28 B);
  // decision 731: 730 (150 B); decision 713: 711, 712, no second banner, list numbers (127 B);
  // decision 736: 734 (36 B), 735 (4 B), 736 (56 B); decision 777: 775 (32 B), 776 (67 B), 778 (31 B);
  // decision 789: 787 (430 B), 788 (29 B); decision 802: 801 (32 B); decision 812: 810 and 811 (186 B);
  // decision 818: 817 (49 B).
  { file: es, label: 'ES module, all chunks (unminified)', budget: Number(args['max-es'] ?? 87.432 * KB) },
  { file: largestLocale, label: 'Largest locale (on demand)', budget: 3 * KB },
  // Decision 668: SHA-256 in plain JavaScript for pages without crypto.subtle (plain http, 667);
  // decision 676: what a failure without an HTTP status says to the site owner (675, 411 B).
  {
    file: `dist/${PUBLIC_SESSION}`,
    label: 'Public session, proof of work (on demand)',
    budget: 2.5 * KB,
  },
  // Decision 378: chips, thumbnails, progress, a question's files, the drop overlay, the upload transport.
  { file: `dist/${ATTACHMENTS}`, label: 'Attachment view (on demand)', budget: 3 * KB },
  {
    file: 'dist/agent-chat.loader.iife.js',
    label: 'Loader (script tag)',
    budget: Number(args['max-loader'] ?? 3.93 * KB),
  },
  // Decision 341: the loader's first values (decision 336, 0.15 KB) moved it past 8 KB;
  // decision 378: the API client's upload and file download, which the DOM-free API shares (0.4 KB);
  // decision 454: the client's Idempotency-Key header (40 B); decision 470: a 503's one more try (124 B);
  // decision 471: the loader's one stand-in launcher for a snippet pasted twice (32 B);
  // decision 494: the stand-in launcher ringed in forced colours (32 B); decision 533: a failed
  // fetch of the element tried again by the next use, and said once on the console (136 B);
  // decision 561: the stand-in launcher in the top layer, again after a move, its one helper shared
  // with the element's (106 B); decision 569: the stand-in behind a page's modal dialog (75 B);
  // decision 696: the API client's 404 that names no thread (694) and the session endpoint's
  // detail (693) (144 B); decision 728: the loader exports the new part composer__field (726) (6 B);
  // decision 731: a question without its Idempotency-Key where the service's CORS refuses it (730) (148 B);
  // decision 746: one script tag installs the chat from its data-* (744) (144 B, the loader script alone).
  // decision 757: the one tag's settings from its src's query and its warning when it has none (755),
  // its chat yielding to a framework's own (756) (+275 B); the budget is now the exact figure, 3,877 B,
  // so each byte the first script of every page grows by is said in a decision; decision 802: the
  // one tag's warning held until no chat has come for seconds after load (800) (+47 B, the loader
  // script alone), and the API client's bodies sent without a NUL (801) (+31 B, the ES root alone).
  // The watch ends once a chat comes, and none starts when one is there at load (+6 B, decision 802).
  {
    file: esFirst,
    label: 'Loader (ES root + static imports)',
    budget: Number(args['max-es-root'] ?? 9.463 * KB),
  },
];
/** Strings only server code has: the key header, the server helpers, the owner field, Node. */
const SERVER_ONLY = [
  'X-API-Key',
  'createSessionHandler',
  'createQueryClient',
  'external_owner_id',
  'node:http',
  'node:stream',
];

let failed = false;
const rows = [];
for (const bundle of bundles) {
  let source;
  try {
    source = Buffer.concat([bundle.file].flat().map((file) => readFileSync(file)));
  } catch {
    console.error(`${bundle.file} is missing: run npm run build first.`);
    process.exit(1);
  }
  const gzip = gzipSync(source, { level: 9 }).length;
  const over = gzip > bundle.budget;
  const leaks = SERVER_ONLY.filter((marker) => source.includes(marker));
  failed ||= over || leaks.length > 0;
  rows.push({
    bundle: bundle.label,
    raw: `${(source.length / KB).toFixed(1)} KB`,
    gzip: `${(gzip / KB).toFixed(1)} KB`,
    budget: `${(bundle.budget / KB).toFixed(1)} KB`,
    used: `${Math.round((gzip / bundle.budget) * 100)} %`,
    status: over ? 'OVER BUDGET' : leaks.length ? `SERVER CODE: ${leaks.join(', ')}` : 'ok',
  });
}
console.table(rows);

/** The engine on its own: everything the widget imports from marked, minified into an IIFE. */
async function engineCost() {
  const output = await build({
    configFile: false,
    logLevel: 'silent',
    plugins: [markedLexerOnly()],
    build: {
      write: false,
      minify: true,
      lib: { entry: 'scripts/markdown-engine.js', name: 'Engine', formats: ['iife'] },
    },
  });
  return gzipSync((Array.isArray(output) ? output[0] : output).output[0].code, { level: 9 }).length;
}
/**
 * The service console's first load (agent-chat-service, /console/): the page, its entry
 * module and stylesheet, and uPlot, which the landing page (Activity) loads at once. Built by
 * `npm run build` into service/dist/console.
 */
function consoleFirstLoad() {
  const dir = 'service/dist/console';
  let html;
  try {
    html = readFileSync(`${dir}/index.html`, 'utf8');
  } catch {
    console.error(`${dir} is missing: run npm run build first.`);
    process.exit(1);
  }
  const linked = [...html.matchAll(/(?:src|href)="\.\/(assets\/[\w.-]+)"/g)].map((m) => `${dir}/${m[1]}`);
  const chart = readdirSync(`${dir}/assets`)
    .filter((f) => f.startsWith('uPlot'))
    .map((f) => `${dir}/assets/${f}`);
  const gz = (files) =>
    files.reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0);
  const total = gzipSync(html, { level: 9 }).length + gz(linked) + gz(chart);
  const budget = Number(args['max-console'] ?? 100 * KB);
  failed ||= total > budget;
  // The widget's markdown renders answers in the conversation view: fetched with the first one opened.
  const markdown = gz(
    readdirSync(`${dir}/assets`)
      .filter((f) => /^markdown-.*\.js$/.test(f))
      .map((f) => `${dir}/assets/${f}`),
  );
  return { total, chart: gz(chart), markdown, budget };
}
const consoleLoad = consoleFirstLoad();
console.table([
  {
    bundle: 'Service console, first load (page + entry + uPlot)',
    gzip: `${(consoleLoad.total / KB).toFixed(1)} KB`,
    budget: `${(consoleLoad.budget / KB).toFixed(1)} KB`,
    used: `${Math.round((consoleLoad.total / consoleLoad.budget) * 100)} %`,
    status: consoleLoad.total > consoleLoad.budget ? 'OVER BUDGET' : 'ok',
  },
]);
console.log(
  `uPlot (charts): ${(consoleLoad.chart / KB).toFixed(1)} KB gzip, ${Math.round((consoleLoad.chart / consoleLoad.total) * 100)} % of the console's first load`,
);
console.log(
  `Console answer markdown (on demand, with the first conversation opened): ${(consoleLoad.markdown / KB).toFixed(1)} KB gzip`,
);
const engine = await engineCost();
const iife = gzipSync(readFileSync(bundles[0].file), { level: 9 }).length;
console.log(
  `markdown engine (marked's Lexer): ${(engine / KB).toFixed(1)} KB gzip, ${Math.round((engine / iife) * 100)} % of the IIFE`,
);
if (failed) {
  console.error('size check failed');
  process.exit(1);
}
