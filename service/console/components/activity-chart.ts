import { LitElement, css, html, unsafeCSS } from 'lit';
import { property } from 'lit/decorators.js';
import type uPlot from 'uplot';
import uplotCss from 'uplot/dist/uPlot.min.css?inline';
import { compact, count } from '../format.js';
import { base, tokens } from '../styles.js';

export interface ChartSeries {
  label: string;
  values: number[];
  /** A CSS custom property of the palette (`--series-1`), so both themes get their colour. */
  color: string;
}

/** uPlot loads with the first chart: the sign-in page and the other pages never pay for it. */
let library: Promise<typeof uPlot> | undefined;
const loadUPlot = () => (library ??= import('uplot').then((m) => m.default));

const DAY_S = 86_400;

/**
 * One chart of per-day figures (uPlot on a canvas), with the same figures as a table for
 * screen readers and anyone who wants the numbers. Rebuilt when the data or the colour
 * scheme changes, resized with its box.
 */
export class ActivityChart extends LitElement {
  static styles = [
    tokens,
    base,
    unsafeCSS(uplotCss),
    css`
    :host { display: block; }
    figure { margin: 0; display: grid; gap: 8px; }
    figcaption { font-weight: 620; }
    .plot { min-height: 220px; }
    .u-legend { font-size: 12.5px; color: var(--c-muted); text-align: start; }
    .u-legend .u-marker { border-radius: 3px; }
    .u-legend th { text-transform: none; letter-spacing: 0; font-weight: 550; color: var(--c-text); }
    .u-legend td, .u-legend th { border: 0; padding: 2px 6px; }
    details { font-size: 13px; }
    summary { cursor: pointer; color: var(--c-muted); }
  `,
  ];

  @property() label = '';
  @property({ attribute: false }) dates: string[] = [];
  @property({ attribute: false }) series: ChartSeries[] = [];
  /** Bars suit counts of few events per day (feedback); lines suit the rest. */
  @property({ type: Boolean }) bars = false;

  private plot: uPlot | null = null;
  private readonly resize = new ResizeObserver(() => this.plot?.setSize(this.size()));
  private readonly scheme = matchMedia('(prefers-color-scheme: dark)');
  private readonly onScheme = () => void this.draw();

  connectedCallback() {
    super.connectedCallback();
    this.scheme.addEventListener('change', this.onScheme);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.scheme.removeEventListener('change', this.onScheme);
    this.resize.disconnect();
    this.plot?.destroy();
    this.plot = null;
  }

  render() {
    const total = (s: ChartSeries) => s.values.reduce((a, b) => a + b, 0);
    return html`<figure>
      <figcaption>${this.label}</figcaption>
      <div class="plot" role="img" aria-label="${this.label}: ${this.series.map((s) => `${s.label} ${count(total(s))} in total`).join(', ')}, ${this.dates[0] ?? ''} to ${this.dates.at(-1) ?? ''}."></div>
      <details><summary>Show as table</summary><div class="table-wrap" tabindex="0" role="region" aria-label="${this.label}, as a table"><table>
        <caption class="visually-hidden">${this.label}</caption>
        <thead><tr><th scope="col">Day</th>${this.series.map((s) => html`<th scope="col" class="num">${s.label}</th>`)}</tr></thead>
        <tbody>${this.dates.map((d, i) => html`<tr><th scope="row">${d}</th>${this.series.map((s) => html`<td class="num">${count(s.values[i] ?? 0)}</td>`)}</tr>`)}</tbody>
      </table></div></details>
    </figure>`;
  }

  updated(changed: Map<string, unknown>) {
    if (changed.has('dates') || changed.has('series')) void this.draw();
  }

  private size() {
    const box = this.renderRoot.querySelector<HTMLElement>('.plot')!;
    return { width: Math.max(240, box.clientWidth), height: 220 };
  }

  private async draw() {
    const U = await loadUPlot();
    const box = this.renderRoot.querySelector<HTMLElement>('.plot');
    if (!box || !this.isConnected) return;
    this.plot?.destroy();
    const style = getComputedStyle(this);
    const color = (name: string) => style.getPropertyValue(name).trim() || '#888';
    const grid = { stroke: color('--c-border'), width: 1 };
    const axis = { stroke: color('--c-muted'), grid, ticks: grid, font: '12px system-ui, sans-serif' };
    // Grouped bars: with two series, one on each side of the day's tick.
    const bars = (i: number) =>
      U.paths.bars!({ size: [0.38, 14], align: this.series.length === 2 ? (i === 0 ? -1 : 1) : 0, gap: 1 });
    const x = this.dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    this.plot = new U(
      {
        ...this.size(),
        tzDate: (ts) => U.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        cursor: { points: { size: 6 } },
        legend: { live: true },
        scales: {
          x: {
            time: true,
            ...(this.bars && x.length
              ? { range: [x[0] - DAY_S / 2, x[x.length - 1] + DAY_S / 2] as [number, number] }
              : {}),
          },
          y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] },
        },
        axes: [axis, { ...axis, size: 52, values: (_u, ticks) => ticks.map((t) => compact(t)) }],
        series: [
          // Away from the chart the legend reads a dash for every value, the day's too (uPlot's own is '--').
          {
            value: (_u: uPlot, v: number | null) =>
              v === null ? '—' : new Date(v * 1000).toISOString().slice(0, 10),
          },
          ...this.series.map((s, i) => ({
            label: s.label,
            stroke: color(s.color),
            width: 2,
            ...(this.bars
              ? { fill: color(s.color), paths: bars(i), points: { show: false } }
              : { points: { show: x.length <= 31, size: 4 } }),
            value: (_u: uPlot, v: number | null) => (v === null ? '—' : count(v)),
          })),
        ],
      },
      [x, ...this.series.map((s) => s.values)],
      box,
    );
    this.resize.observe(box);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'activity-chart': ActivityChart;
  }
}
