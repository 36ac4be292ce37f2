import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../../service/docs/html.js';

/**
 * A page laid out as some documentation themes lay it out (Django's manual is one): no `<main>`,
 * `role="main"` or `<article>`, a banner heading naming the site above the page's own heading,
 * a line of previous/up/next links above and below the content, and a sidebar beside it.
 */
const THEMED = `<!DOCTYPE html>
<html><head><title>Signals — Acme 3.2 documentation</title></head><body>
<div id="hd">
  <h1><a href="../index.html">Acme 3.2 documentation</a></h1>
  <div id="global-nav"><a href="../index.html">Home</a> | <a href="../contents.html">Table of contents</a></div>
  <div class="nav">&laquo; <a href="settings.html">previous</a> | <a href="index.html">up</a> | <a href="checks.html">next</a> &raquo;</div>
</div>
<div id="bd">
  <div class="yui-b">
    <div class="section" id="signals">
      <h1>Signals<a class="headerlink" href="#signals">¶</a></h1>
      <p>Acme includes a signal dispatcher that tells receivers when an object is saved.</p>
      <div class="section" id="listening">
        <h2>Listening to signals<a class="headerlink" href="#listening">¶</a></h2>
        <p>Register a receiver with <code>Signal.connect()</code>.</p>
      </div>
    </div>
  </div>
  <div class="yui-b" id="sidebar">
    <h3>Last update:</h3>
    <p class="topless">Nov 11, 2026</p>
  </div>
</div>
<div id="ft"><div class="nav">&laquo; <a href="settings.html">previous</a> | <a href="index.html">up</a> | <a href="checks.html">next</a> &raquo;</div></div>
</body></html>`;

describe('extractHtml on a page without a main landmark', () => {
  it("takes the page's own heading for its title, not the site's name in a banner linked to the home page", () => {
    const page = extractHtml(THEMED, 'https://acme.test/docs/topics/signals.html');
    expect(page.title).toBe('Signals');
    expect(page.sections.map((s) => [s.url, s.headings])).toEqual([
      ['https://acme.test/docs/topics/signals.html', []],
      ['https://acme.test/docs/topics/signals.html#listening', ['Listening to signals']],
    ]);
  });

  it('drops the previous/up/next lines and the sidebar, keeping the content whole', () => {
    const page = extractHtml(THEMED, 'https://acme.test/docs/topics/signals.html');
    expect(page.sections.map((s) => s.text)).toEqual([
      'Acme includes a signal dispatcher that tells receivers when an object is saved.',
      'Register a receiver with `Signal.connect()`.',
    ]);
  });

  it('keeps a heading linked to the page itself as its title', () => {
    const home = THEMED.replace('href="../index.html">Acme', 'href="signals.html">Acme');
    const page = extractHtml(home, 'https://acme.test/docs/topics/signals.html');
    expect(page.title).toBe('Acme 3.2 documentation');
    expect(page.sections.map((s) => s.headings)).toEqual([['Signals'], ['Signals', 'Listening to signals']]);
  });

  it('keeps a line whose words are not nearly all links, separators or not', () => {
    const prose = THEMED.replace(
      '<p>Register a receiver',
      '<p>See <a href="a.html">connect</a> | <a href="b.html">disconnect</a> for the two calls.</p><p>Register a receiver',
    );
    const page = extractHtml(prose, 'https://acme.test/docs/topics/signals.html');
    expect(page.sections.map((s) => s.text).join('\n')).toContain(
      'See connect | disconnect for the two calls.',
    );
  });
});

/**
 * A page as DocBook XSL writes it (PostgreSQL's manual is one): previous/up/next tables above
 * and below the content naming the chapter and the next page, a table of contents, a title in a
 * second-level heading, and a note titled with a heading.
 */
const DOCBOOK = `<!DOCTYPE html>
<html><head><title>14.1. Using EXPLAIN</title></head><body id="docContent">
<div class="navheader"><table width="100%" summary="Navigation header">
  <tr><th colspan="5" align="center">14.1. Using <code class="command">EXPLAIN</code></th></tr>
  <tr><td><a accesskey="p" href="performance-tips.html">Prev</a> </td><td><a href="performance-tips.html">Up</a></td>
  <th width="60%" align="center">Chapter 14. Performance Tips</th>
  <td><a href="index.html">Home</a></td><td> <a href="planner-stats.html">Next</a></td></tr>
</table><hr /></div>
<div class="sect1" id="USING-EXPLAIN"><div class="titlepage"><div><div>
  <h2 class="title">14.1. Using <code class="command">EXPLAIN</code></h2></div></div></div>
  <div class="toc"><dl class="toc"><dt><span class="sect2"><a href="using-explain.html#BASICS">14.1.1. Basics</a></span></dt></dl></div>
  <p>Every query gets a plan; <code>EXPLAIN</code> shows it.</p>
  <div class="note"><h3 class="title">Note</h3><p>Examples here come from the regression database.</p></div>
  <p>Plans differ between versions.</p>
  <div class="sect2" id="BASICS"><div class="titlepage"><div><div><h3 class="title">14.1.1. Basics</h3></div></div></div>
  <p>A plan is a tree of nodes.</p></div>
</div>
<div class="navfooter"><hr /><table width="100%" summary="Navigation footer">
  <tr><td><a href="performance-tips.html">Prev</a> </td><td><a href="performance-tips.html">Up</a></td><td> <a href="planner-stats.html">Next</a></td></tr>
  <tr><td>Chapter 14. Performance Tips </td><td><a href="index.html">Home</a></td><td> 14.2. Statistics Used by the Planner</td></tr>
</table></div>
</body></html>`;

describe('extractHtml on a DocBook page', () => {
  it("drops the previous/up/next tables, so the opening is the page's own first words", () => {
    const page = extractHtml(DOCBOOK, 'https://pg.test/docs/using-explain.html');
    expect(page.title).toBe('14.1. Using EXPLAIN');
    expect(page.sections[0].text.startsWith('Every query gets a plan')).toBe(true);
    const all = page.sections.map((s) => s.text).join('\n');
    expect(all).not.toMatch(/Prev|Performance Tips|Statistics Used by the Planner/);
  });

  it("keeps a note's title and text in the section around it, and the text after the note too", () => {
    const page = extractHtml(DOCBOOK, 'https://pg.test/docs/using-explain.html');
    expect(page.sections.map((s) => [s.url, s.headings, s.text])).toEqual([
      [
        'https://pg.test/docs/using-explain.html',
        [],
        'Every query gets a plan; `EXPLAIN` shows it.\n\nNote\n\nExamples here come from the regression database.\n\nPlans differ between versions.',
      ],
      ['https://pg.test/docs/using-explain.html#BASICS', ['14.1.1. Basics'], 'A plan is a tree of nodes.'],
    ]);
  });
});

/** A page as Texinfo writes every node of a GNU manual: a line of previous/next/up links, then the node. */
const TEXINFO = `<!DOCTYPE html>
<html><head><title>Thread Safety (Acme Manual)</title><meta name="Generator" content="makeinfo"></head><body>
<div class="nav-top"><p>
Next: <a href="Closures.html" rel="next">Closures</a>, Previous: <a href="Types.html" rel="prev">Types</a>, Up: <a href="Using.html" rel="up">Using Acme</a> &nbsp; [<a href="Index.html" rel="index">Index</a>]</p>
</div><hr>
<span id="Thread-Safety-1"></span><h3 class="section">2.7 Thread Safety</h3>
<p>Acme is not completely thread-safe; follow two rules.</p>
<p>See the <a href="Index.html">Index</a> for every rule.</p>
<hr><div class="nav-bottom"><p>Next: <a href="Closures.html">Closures</a>, Up: <a href="Using.html">Using Acme</a></p></div>
</body></html>`;

describe("extractHtml on a DocBook manual's back-of-book index", () => {
  it('drops the entries, which point at sections, and keeps an API entry with its anchor as a section', () => {
    const index = extractHtml(
      `<html><head><title>Index</title></head><body><div class="index" id="BOOKINDEX"><h2>Index</h2>
      <div class="indexdiv" id="indexdiv-M"><h3>M</h3><dl>
        <dt id="ientry-id1">max_connections configuration parameter, <a class="indexterm" href="runtime-config-connection.html#GUC-MAX-CONNECTIONS">Connection Settings</a></dt>
        <dt id="ientry-id2">materialized views, <a class="indexterm" href="rules-materializedviews.html">Materialized Views</a></dt>
      </dl></div></div></body></html>`,
      'https://acme.test/manual/bookindex.html',
    );
    expect(index.sections).toEqual([]);
    const reference = extractHtml(
      `<main><h1>Connections</h1><dl><dt id="GUC-MAX-CONNECTIONS"><code>max_connections</code> (integer)</dt>
        <dd><p>The most connections at once.</p></dd></dl></main>`,
      'https://acme.test/manual/runtime-config-connection.html',
    );
    expect(reference.sections.map((s) => [s.url, s.headings, s.text])).toEqual([
      [
        'https://acme.test/manual/runtime-config-connection.html#GUC-MAX-CONNECTIONS',
        ['max_connections (integer)'],
        'max_connections (integer)\n\nThe most connections at once.',
      ],
    ]);
  });
});

describe('extractHtml on a Texinfo page', () => {
  it('drops the lines of links with only Next, Previous, Up and Index beside them, keeping prose with a link', () => {
    const page = extractHtml(TEXINFO, 'https://acme.test/manual/Thread-Safety.html');
    expect(page.sections.map((s) => [s.url, s.headings, s.text])).toEqual([
      [
        'https://acme.test/manual/Thread-Safety.html#Thread-Safety-1',
        ['2.7 Thread Safety'],
        'Acme is not completely thread-safe; follow two rules.\n\nSee the Index for every rule.',
      ],
    ]);
  });
});

describe('extractHtml on lists whose items hold paragraphs', () => {
  it("writes an item's first paragraph on its marker, and drops a marker with only a list or code under it", () => {
    const page = extractHtml(
      `<main><h1>Upgrading</h1><ul>
        <li><p>Back up the database.</p><p>Keep the copy off the server.</p></li>
        <li><ul><li><p>Stop the workers.</p></li></ul></li>
        <li><pre>acme migrate</pre></li>
      </ul></main>`,
      'https://acme.test/upgrading.html',
    );
    expect(page.sections.map((s) => s.text)).toEqual([
      '- Back up the database.\n\nKeep the copy off the server.\n\n- Stop the workers.\n\n```\nacme migrate\n```',
    ]);
  });
});

describe('extractHtml on pages of other generators', () => {
  it("titles an mdBook subchapter by its first heading, not by a <title> that adds the book's name", () => {
    const page = extractHtml(
      `<html><head><title>Control Flow - The Acme Book</title></head><body>
      <div id="menu-bar"><h1 class="menu-title">The Acme Book</h1></div>
      <main><h2 id="control-flow"><a class="header" href="#control-flow">Control Flow</a></h2>
      <p>Run code when a condition holds.</p>
      <h3 id="loops"><a class="header" href="#loops">Loops</a></h3><p>Run code again.</p></main></body></html>`,
      'https://acme.test/book/control-flow.html',
    );
    expect(page.title).toBe('Control Flow');
    expect(page.sections.map((s) => [s.title, s.headings, s.text])).toEqual([
      ['Control Flow', [], 'Run code when a condition holds.'],
      ['Control Flow', ['Loops'], 'Run code again.'],
    ]);
    // A <title> that is not the first heading and a name stays the title.
    expect(
      extractHtml(
        '<html><head><title>Acme: Flow</title></head><body><main><h2>Control Flow</h2><p>Text.</p></main></body></html>',
        'https://acme.test/flow.html',
      ).title,
    ).toBe('Acme: Flow');
  });

  it("drops Doxygen's title bar, table of contents and footer, so the text stays under its own heading", () => {
    const page = extractHtml(
      `<html><head><title>Acme: Links</title></head><body>
      <div id="top"><div id="titlearea"><table><tr><td><div id="projectname">Acme</div></td></tr></table></div></div>
      <div class="header"><div class="headertitle"><div class="title">Links</div></div></div>
      <div class="contents">
        <div class="toc"><h3>Table of Contents</h3><ul><li class="level1"><a href="#urls">URLs</a></li></ul></div>
        <div class="textblock"><p>Acme links every URL it finds.</p>
        <h2><a class="anchor" id="urls"></a>URLs</h2><p>Write the address whole.</p></div>
      </div>
      <hr class="footer"/><address class="footer"><small>Generated by Acme 1.9</small></address>
      </body></html>`,
      'https://acme.test/links.html',
    );
    expect(page.sections.map((s) => [s.url, s.headings, s.text])).toEqual([
      ['https://acme.test/links.html', [], 'Links\n\nAcme links every URL it finds.'],
      ['https://acme.test/links.html#urls', ['URLs'], 'Write the address whole.'],
    ]);
  });
});

describe('extractHtml on a VitePress page', () => {
  const VITEPRESS = `<html><head><title>Getting started | Acme</title></head><body>
    <div class="VPNav"><nav><a href="/">Acme</a></nav></div>
    <main class="main"><div class="vp-doc"><div>
      <h1 id="getting-started" tabindex="-1">Getting started <a class="header-anchor" href="#getting-started" aria-label="Permalink to &quot;Getting started&quot;">&#8203;</a></h1>
      <h2 id="install" tabindex="-1">Install <a class="header-anchor" href="#install">&#8203;</a></h2>
      <ol start="3">
        <li><p>Install the package:</p>
          <div class="language-sh vp-adaptive-theme"><button title="Copy Code" class="copy"></button><span class="lang">sh</span><pre class="shiki"><code><span class="line"><span>npm install acme</span></span></code></pre></div></li>
        <li><p>Set your key.</p></li>
      </ol>
      <table><thead><tr><th>Field</th><th>Meaning</th></tr></thead>
        <tbody><tr><td><code>to</code></td><td>the customer | or a list</td></tr><tr><td><code>amount</code></td><td>in cents</td></tr></tbody></table>
    </div></div></main></body></html>`;

  it('keeps titles without the permalink, numbers ordered steps, fences code with its language and writes a table whole', () => {
    const page = extractHtml(VITEPRESS, 'https://acme.test/guide/getting-started.html');
    expect(page.title).toBe('Getting started');
    expect(page.sections.map((s) => [s.url, s.headings, s.text])).toEqual([
      [
        'https://acme.test/guide/getting-started.html#install',
        ['Install'],
        [
          '3. Install the package:',
          '```sh\nnpm install acme\n```',
          '4. Set your key.',
          '| Field | Meaning |\n| --- | --- |\n| to | the customer \\| or a list |\n| amount | in cents |',
        ].join('\n\n'),
      ],
    ]);
  });
});

describe('extractHtml on a Docusaurus page', () => {
  it("keeps every tab's panel, the hidden ones too, and drops what is hidden otherwise", () => {
    const page = extractHtml(
      `<html><head><title>Install | Acme</title></head><body><div class="main-wrapper"><main><article>
        <div class="theme-doc-markdown markdown"><header><h1>Install</h1></header>
        <div class="tabs-container"><ul role="tablist"><li role="tab" aria-selected="true">npm</li><li role="tab">Yarn</li></ul>
          <div class="margin-top--md">
            <div role="tabpanel"><pre><code class="language-sh">npm install acme</code></pre></div>
            <div role="tabpanel" hidden><pre><code class="language-sh">yarn add acme</code></pre></div>
          </div></div>
        <p hidden>Shown after the install.</p><p aria-hidden="true">Decoration</p>
        </div></article></main></div></body></html>`,
      'https://acme.test/install/',
    );
    expect(page.sections.map((s) => s.text)).toEqual([
      '- npm\n\n- Yarn\n\n```sh\nnpm install acme\n```\n\n```sh\nyarn add acme\n```',
    ]);
  });
});

describe('extractHtml on a Starlight page', () => {
  it('reads a callout aside and each line of Expressive Code, without the sidebar or screen-reader labels', () => {
    const page = extractHtml(
      `<html><head><title>Billing | Acme</title></head><body><div class="page">
      <aside class="right-sidebar-container"><nav aria-labelledby="toc"><h2 id="toc">On this page</h2><ul><li><a href="#invoices">Invoices</a></li></ul></nav></aside>
      <main><h1 id="_top">Billing</h1>
        <aside aria-label="Caution" class="starlight-aside starlight-aside--caution"><p class="starlight-aside__title" aria-hidden="true">Caution</p>
          <div class="starlight-aside__content"><p>Cancel before the first of the month.</p></div></aside>
        <h2 id="invoices">Invoices</h2>
        <div class="expressive-code"><figure class="frame is-terminal"><figcaption class="header"><span class="title"></span><span class="sr-only">Terminal window</span></figcaption>
          <pre data-language="js"><code><div class="ec-line"><div class="code"><span>const acme = new Acme();</span></div></div><div class="ec-line"><div class="code"><span>await acme.send(42);</span></div></div></code></pre>
          <div class="copy"><button title="Copy to clipboard" data-code="x"></button></div></figure></div>
      </main></div></body></html>`,
      'https://acme.test/guide/billing/',
    );
    expect(page.sections.map((s) => [s.headings, s.text])).toEqual([
      [[], 'Caution\n\nCancel before the first of the month.'],
      [['Invoices'], '```js\nconst acme = new Acme();\nawait acme.send(42);\n```'],
    ]);
  });
});

describe('extractHtml on a page that sends its reader on', () => {
  const refresh = (content: string) =>
    extractHtml(
      `<html><head><title>Moved</title><meta http-equiv="Refresh" content="${content}"></head><body><p>Moved.</p></body></html>`,
      'https://docs.example.com/old/page.html',
    ).refresh;

  it('reads the address of a meta refresh, quoted or not, with or without url=', () => {
    expect(refresh('0; url=../new/')).toBe('https://docs.example.com/new/');
    expect(refresh("0;URL='https://example.org/docs/'")).toBe('https://example.org/docs/');
    expect(refresh('3, next.html')).toBe('https://docs.example.com/old/next.html');
  });

  it('has none for a refresh that reloads the page, or an address that is no web page', () => {
    expect(refresh('300')).toBeNull();
    expect(refresh('0; url=javascript:alert(1)')).toBeNull();
  });

  it('tells a page that runs scripts from one that does not, leaving data blocks aside', () => {
    const page = (head: string) =>
      extractHtml(`<html><head>${head}</head><body></body></html>`, 'https://x.test/');
    expect(page('<script src="/app.js"></script>').scripted).toBe(true);
    expect(page('<script type="application/ld+json">{}</script>').scripted).toBe(false);
    expect(page('').scripted).toBe(false);
  });
});

describe('extractHtml on an AsciiDoc page', () => {
  // As asciidoc writes git's manual: CR LF line ends, and a note set beside its label in a table of one row.
  const PAGE = [
    '<html><head><title>git-mailsplit(1) Manual Page</title></head><body><div id="content">',
    '<h2 id="_description">DESCRIPTION</h2><div class="sectionbody">',
    '<div class="listingblock"><div class="content"><pre><code>git mailsplit -o&lt;dir&gt;\r\n    &lt;mbox&gt;</code></pre></div></div>',
    '<div class="admonitionblock"><table><tr><td class="icon"><div class="title">Important</div></td>',
    '<td class="content">Maildir splitting relies upon filenames being sorted.</td></tr></table></div>',
    '<table><tr><th>Option</th><th>Meaning</th></tr><tr><td>-b</td><td>Treat files as mbox</td></tr></table>',
    '</div></div></body></html>',
  ].join('\r\n');

  it('reads a one-row table as the paragraphs it holds, a table of rows as a table, and code without CR', () => {
    const { sections } = extractHtml(PAGE, 'https://git.example/git-mailsplit.html');
    expect(sections.at(-1)!.text).toBe(
      [
        '```\ngit mailsplit -o<dir>\n    <mbox>\n```',
        'Important',
        'Maildir splitting relies upon filenames being sorted.',
        '| Option | Meaning |\n| --- | --- |\n| -b | Treat files as mbox |',
      ].join('\n\n'),
    );
  });
});

describe('extractHtml on a Javadoc page', () => {
  // As Javadoc 17 writes a class: the module and package above the title, a summary drawn as a grid of boxes.
  const PAGE = `<html><head><title>ConstantBootstraps (Java SE 17)</title></head><body><main role="main">
<div class="header">
<div class="sub-title"><span class="module-label-in-type">Module</span>&nbsp;<a href="../../../module-summary.html">java.base</a></div>
<h1 title="Class ConstantBootstraps" class="title">Class ConstantBootstraps</h1></div>
<div class="type-signature"><span class="modifiers">public final class </span>ConstantBootstraps</div>
<div class="block">Bootstrap methods for dynamically-computed constants.</div>
<section class="method-summary" id="method-summary"><h2>Method Summary</h2>
<div class="summary-table three-column-summary">
<div class="table-header col-first">Modifier and Type</div>
<div class="table-header col-second">Method</div>
<div class="table-header col-last">Description</div>
<div class="col-first even-row-color"><code>static VarHandle</code></div>
<div class="col-second even-row-color"><code><a href="#arrayVarHandle()">arrayVarHandle</a>(Lookup lookup)</code></div>
<div class="col-last even-row-color"><div class="block">Finds a VarHandle for an array type.</div></div>
</div>
<div class="inherited-list"><h3 id="methods-inherited-from-class-java.lang.Object">Methods declared in class java.lang.Object</h3>
<code>${['clone', 'equals', 'finalize', 'getClass', 'hashCode', 'notify', 'notifyAll', 'toString', 'wait', 'wait', 'wait'].map((m) => `<a href="Object.html#${m}()">${m}</a>`).join(', ')}</code></div>
</section></main></body></html>`;

  it('keeps what is above the title in the part under it, writes a grid summary as a table, and drops a list of links in code', () => {
    const { title, sections } = extractHtml(PAGE, 'https://docs.example/ConstantBootstraps.html');
    expect(title).toBe('Class ConstantBootstraps');
    expect(sections.map((s) => [s.headings, s.text])).toEqual([
      [
        [],
        'Module java.base\n\npublic final class ConstantBootstraps\n\nBootstrap methods for dynamically-computed constants.',
      ],
      [
        ['Method Summary'],
        '| Modifier and Type | Method | Description |\n| --- | --- | --- |\n' +
          '| static VarHandle | arrayVarHandle(Lookup lookup) | Finds a VarHandle for an array type. |',
      ],
    ]);
  });
});

describe('extractHtml on a TypeDoc page', () => {
  const PAGE = `<html><head><title>Scope | acme</title></head><body>
<header class="tsd-page-toolbar"><div class="tsd-toolbar-contents container"><a href="../index.html" class="title">acme</a></div></header>
<div class="container container-main"><div class="col-content">
<div class="tsd-page-title"><h1>Class Scope</h1></div>
<section class="tsd-panel tsd-comment"><div class="tsd-comment tsd-typography"><p>Where a crawl may go.</p></div></section>
</div>
<div class="col-sidebar"><div class="page-menu"><div class="tsd-navigation settings"><details class="tsd-accordion">
<summary class="tsd-accordion-summary"><h3>Settings</h3></summary><div class="tsd-accordion-details">
<div class="tsd-filter-visibility"><span class="settings-label">Member Visibility</span><ul><li><label><input type="checkbox"/>Protected</label></li></ul></div>
<div class="tsd-theme-toggle"><label class="settings-label" for="tsd-theme">Theme</label><select id="tsd-theme"><option>OS</option></select></div>
</div></details></div></div></div>
</div></body></html>`;

  it('drops the sidebar column of settings and menus', () => {
    const { title, sections } = extractHtml(PAGE, 'https://docs.example/classes/Scope.html');
    expect(title).toBe('Class Scope');
    expect(sections.map((s) => [s.headings, s.text])).toEqual([[[], 'Where a crawl may go.']]);
  });
});

describe("a page's links", () => {
  it('include what it shows inside it: a PDF in an iframe, an embed or an object', () => {
    const page = extractHtml(
      `<title>Manuals</title><main><h1>Manuals</h1>
        <p><a href="guide.html#intro">The guide</a></p>
        <iframe src="pdf/install.pdf" title="Installation guide"></iframe>
        <embed src="/pdf/datasheet.pdf" type="application/pdf">
        <object data="pdf/api.pdf" type="application/pdf"><a href="pdf/api.pdf">API (PDF)</a></object>
        <iframe srcdoc="<p>inline</p>"></iframe>
      </main>`,
      'https://acme.test/docs/manuals.html',
    );
    expect(page.links.sort()).toEqual([
      'https://acme.test/docs/guide.html',
      'https://acme.test/docs/pdf/api.pdf',
      'https://acme.test/docs/pdf/install.pdf',
      'https://acme.test/pdf/datasheet.pdf',
    ]);
  });
});
