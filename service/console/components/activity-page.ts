import { css, html, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { ConsoleApiError } from '../api.js';
import type { ConsoleActivity, ConsoleWidgetReleases } from '../../../contract/console.js';
import { ago, count, freshness, utcDay } from '../format.js';
import { thumbDown, thumbUp } from '../icons.js';
import { ConsolePage, pageLink } from './page.js';
import { routeHref } from '../router.js';
import { field } from '../form.js';

const RANGES = [7, 30, 90, 365];

/** Sessions, threads, messages, feedback, model tokens and failed answers per day; per integration; a range; CSV. */
export class ActivityPage extends ConsolePage {
  static styles = [
    ...ConsolePage.styles,
    css`
    .controls { align-items: end; }
    .stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(132px, 1fr)); gap: 12px; }
    .stat { padding: 14px 16px; }
    .stat dt { color: var(--c-muted); font-size: 13px; font-weight: 550; }
    .stat dd { margin: 2px 0 0; font-size: 22px; overflow-wrap: anywhere; font-weight: 650; font-variant-numeric: tabular-nums; }
    .stat dl { margin: 0; }
    .stat dt { display: flex; gap: 6px; align-items: center; }
    .stat a { font-size: 13px; }
    .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 440px), 1fr)); gap: 16px; }
    .presets { display: inline-flex; border: 1px solid var(--c-border); border-radius: 8px; overflow: hidden; }
    /* Each button draws the line before it and above it, one pixel under the box's own edge
       (clipped), so the periods can wrap to a second row on a narrow screen with a line between. */
    .presets button { border: 0; border-radius: 0; min-height: 34px; border-inline-start: 1px solid var(--c-border); border-block-start: 1px solid var(--c-border); margin-inline-start: -1px; margin-block-start: -1px; }
    .presets button[aria-pressed='true'] { background: color-mix(in srgb, var(--c-accent) 14%, transparent); color: var(--c-accent); }
    @media (max-width: 640px) {
      .presets { display: flex; flex-wrap: wrap; width: 100%; }
      .presets button { flex: 1 0 auto; padding: 0 6px; }
      table.records tr { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 4px 20px; }
      table.records td { grid-column: auto; }
      table.records th[scope='row'] { font-size: 15px; }
    }
  `,
  ];

  @state() private data: ConsoleActivity | null = null;
  @state() private error = '';
  /** A From typed after To: said, since the figures stay those of the period before. */
  @state() private order = '';
  @state() private releases: ConsoleWidgetReleases | null = null;
  private key = '';

  connectedCallback() {
    super.connectedCallback();
    // The service's, not the project's: once a visit. Without it the page only lacks the line.
    this.api.widgetReleases().then(
      (releases) => (this.releases = releases),
      () => {},
    );
  }

  private get range() {
    return {
      start: this.params.get('start') ?? utcDay(-29),
      end: this.params.get('end') ?? utcDay(0),
      integration_id: this.params.get('integration_id') ?? undefined,
    };
  }

  updated() {
    const key = `${this.project.id}?${new URLSearchParams(Object.entries(this.range).filter((e): e is [string, string] => !!e[1]))}`;
    if (key === this.key) return;
    this.key = key;
    void this.load(key);
  }

  private async load(key: string) {
    try {
      const data = await this.api.activity(this.project.id, this.range);
      if (key === this.key) {
        this.data = data;
        this.error = '';
      }
    } catch (error) {
      if (key === this.key)
        this.error = error instanceof ConsoleApiError ? error.message : 'The activity could not be loaded.';
    }
  }

  private set(params: Record<string, string | undefined>) {
    this.order = '';
    this.navigate('activity', { ...this.range, ...params }, true);
  }

  render() {
    const r = this.range;
    const d = this.data;
    const days = Math.round((Date.parse(r.end) - Date.parse(r.start)) / 86_400_000) + 1;
    return html`<div class="stack">
      <div class="page-head">
        <div><h1 tabindex="-1">Activity</h1><p class="muted">${this.project.name}, ${r.start} to ${r.end} (UTC days).</p></div>
        <a class="button" href=${this.api.activityCsvUrl(this.project.id, r)} download>Download CSV</a>
      </div>
      <form class="card row controls" @change=${this.onChange} @submit=${(e: Event) => e.preventDefault()}>
        <div class="presets" role="group" aria-label="Period">${RANGES.map(
          (
            n,
          ) => html`<button type="button" aria-pressed=${r.end === utcDay(0) && days === n ? 'true' : 'false'}
          @click=${() => this.set({ start: utcDay(1 - n), end: utcDay(0) })}>${n === 365 ? '1 year' : `${n} days`}</button>`,
        )}</div>
        <label>From <input type="date" name="start" .value=${r.start} max=${r.end} aria-invalid=${this.order ? 'true' : nothing} aria-describedby=${this.order ? 'order' : nothing}></label>
        <label>To <input type="date" name="end" .value=${r.end} min=${r.start} aria-invalid=${this.order ? 'true' : nothing} aria-describedby=${this.order ? 'order' : nothing}></label>
        <label>Integration <select name="integration_id">
          <option value="">All integrations</option>
          ${this.project.integrations.map((i) => html`<option value=${i.id} ?selected=${r.integration_id === i.id}>${i.name}</option>`)}
        </select></label>
      </form>
      ${this.order ? html`<p class="notice error" role="alert" id="order">${this.order}</p>` : nothing}
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      ${this.pinnedPages()}
      ${d ? this.figures(d) : html`<p class="muted" role="status">Loading activity…</p>`}
    </div>`;
  }

  /**
   * Pages that still load a release before the one served (decision 742): the service keeps it
   * for their pinned tag (741), for 180 days after their last load; the owner may move them on.
   */
  private pinnedPages() {
    const r = this.releases;
    if (!r?.serving) return nothing;
    // Kept before the one served: during a rolling upgrade, an old instance's console does not
    // call the new release earlier.
    const own = r.releases.find((x) => x.version === r.serving);
    const older = r.releases.filter(
      (x) => x.version !== r.serving && x.loaded_at && (!own || x.stored_at < own.stored_at),
    );
    if (!older.length) return nothing;
    const list = older.map((x) => `${x.version} (last loaded ${ago(x.loaded_at)})`).join(', ');
    return html`<p class="notice warn" role="note">Some pages still load an earlier widget release through a pinned script tag: ${list}. The service serves ${r.serving} and keeps each earlier release until no page has loaded it for 180 days. To move those pages on, paste the tag from an integration's Install section (${pageLink(routeHref('integrations', this.project.id), 'Integrations')}).</p>`;
  }

  private onChange(event: Event) {
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const start = field(data, 'start');
    const end = field(data, 'end');
    if (!start || !end) return;
    if (start > end) {
      const r = this.range;
      this.order = `From is after To: choose a From on or before the To. The figures are still those of ${r.start} to ${r.end}.`;
      return;
    }
    this.set({ start, end, integration_id: field(data, 'integration_id') || undefined });
  }

  private figures(d: ConsoleActivity) {
    const t = d.totals;
    const dates = d.by_day.map((row) => row.date);
    const col = (key: keyof ConsoleActivity['by_day'][number]) => d.by_day.map((row) => Number(row[key]));
    const stats = [
      ['Sessions', t.sessions],
      ['Threads', t.threads],
      ['Messages', t.messages],
      // The owners a site's server named (anonymous visitors are none): "unique owners" read as 0 visitors.
      ['Signed-in visitors', t.unique_owners],
      [html`${thumbUp} Helpful`, t.upvotes],
      [html`${thumbDown} Not helpful`, t.downvotes],
      ['Model tokens', t.prompt_tokens + t.completion_tokens],
      ['Failed answers', t.failed_answers],
    ] as const;
    // The failures' threads, in the period and integration shown (decision 497).
    const failed = routeHref('conversations', this.project.id, { ...this.range, error: '1' });
    return html`
      <section aria-label="Totals" class="stats">${stats.map(([label, value]) => html`<div class="card stat"><dl><dt>${label}</dt><dd>${count(value)}</dd></dl>${label === 'Failed answers' && value ? pageLink(failed, 'Show conversations', '', 'Show conversations with a failed answer') : nothing}</div>`)}</section>
      <div class="charts">
        <div class="card"><activity-chart label="Conversations per day" .dates=${dates} .series=${[
          { label: 'Sessions', values: col('sessions'), color: '--series-1' },
          { label: 'Threads', values: col('threads'), color: '--series-2' },
          { label: 'Messages', values: col('messages'), color: '--series-3' },
        ]}></activity-chart></div>
        <div class="card"><activity-chart bars label="Feedback per day" .dates=${dates} .series=${[
          { label: 'Helpful', values: col('upvotes'), color: '--series-up' },
          { label: 'Not helpful', values: col('downvotes'), color: '--series-down' },
        ]}></activity-chart></div>
        <div class="card"><activity-chart label="Model tokens per day" .dates=${dates} .series=${[
          { label: 'Prompt tokens', values: col('prompt_tokens'), color: '--series-1' },
          { label: 'Completion tokens', values: col('completion_tokens'), color: '--series-3' },
        ]}></activity-chart></div>
      </div>
      <section class="card stack" aria-labelledby="by-integration">
        <h2 id="by-integration">By integration</h2>
        ${
          d.by_integration.length
            ? html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="by-integration"><table class="records">
          <thead><tr><th scope="col">Integration</th><th scope="col" class="num">Sessions</th><th scope="col" class="num">Threads</th><th scope="col" class="num">Messages</th><th scope="col" class="num">Helpful</th><th scope="col" class="num">Not helpful</th><th scope="col" class="num">Tokens</th><th scope="col" class="num">Failed answers</th></tr></thead>
          <tbody>${d.by_integration.map(
            (
              i,
            ) => html`<tr><th scope="row">${this.project.integrations.find((x) => x.id === i.integration_id)?.name ?? i.integration_id}</th>
            <td class="num" data-label="Sessions">${count(i.sessions)}</td><td class="num" data-label="Threads">${count(i.threads)}</td><td class="num" data-label="Messages">${count(i.messages)}</td>
            <td class="num" data-label="Helpful">${count(i.upvotes)}</td><td class="num" data-label="Not helpful">${count(i.downvotes)}</td><td class="num" data-label="Tokens">${count(i.prompt_tokens + i.completion_tokens)}</td><td class="num" data-label="Failed answers">${count(i.failed_answers)}</td></tr>`,
          )}</tbody>
        </table></div>`
            : html`<p class="muted">No conversations in this period.</p>`
        }
        <p class="muted">${freshness(d.freshness)}</p>
      </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'activity-page': ActivityPage;
  }
}
