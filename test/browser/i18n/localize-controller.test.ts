import { fixture, html } from '@open-wc/testing';
import { LitElement, html as litHtml } from 'lit';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalizeController } from '../../../src/components/agent-chat/localize-controller.js';
import { loadLocale } from '../../../src/i18n/index.js';

/** A stand-in host: the controller's behaviour, without the whole widget. */
class LocalizedProbe extends LitElement {
  static override properties = { strings: { attribute: false } };
  strings?: Partial<Record<string, string>>;
  readonly localize = new LocalizeController(this, () => this.strings);
  override render() {
    return litHtml`<button dir=${this.localize.dir}>${this.localize.t('send')}</button>`;
  }
}
customElements.define('localized-probe', LocalizedProbe);

const button = (probe: Element) => probe.shadowRoot!.querySelector('button')!;
const originalLang = document.documentElement.getAttribute('lang');

afterEach(() => {
  if (originalLang === null) document.documentElement.removeAttribute('lang');
  else document.documentElement.setAttribute('lang', originalLang);
});

describe('LocalizeController', () => {
  it('speaks English on a page without lang', async () => {
    document.documentElement.removeAttribute('lang');
    const probe = await fixture<LocalizedProbe>(html`<localized-probe></localized-probe>`);
    expect(button(probe).textContent).toBe('Send');
    expect(button(probe).dir).toBe('ltr');
  });

  it('follows the nearest lang on the page, across a shadow root', async () => {
    const wrapper = await fixture<HTMLElement>(html`<section lang="de-AT"><div></div></section>`);
    const shadow = wrapper.querySelector('div')!.attachShadow({ mode: 'open' });
    const probe = document.createElement('localized-probe') as LocalizedProbe;
    shadow.append(probe);
    await expect.poll(() => button(probe)?.textContent).toBe('Senden');
    probe.remove();
  });

  it('switches when the page changes its language, and lays out right to left for Hebrew', async () => {
    document.documentElement.setAttribute('lang', 'fr');
    const probe = await fixture<LocalizedProbe>(html`<localized-probe></localized-probe>`);
    await expect.poll(() => button(probe).textContent).toBe('Envoyer');
    document.documentElement.setAttribute('lang', 'he');
    await expect.poll(() => button(probe).textContent).toBe('שליחה');
    expect(button(probe).dir).toBe('rtl');
  });

  it('prefers its own lang to the page’s, and the site’s strings to both', async () => {
    document.documentElement.setAttribute('lang', 'fr');
    const probe = await fixture<LocalizedProbe>(html`<localized-probe lang="ja"></localized-probe>`);
    await expect.poll(() => button(probe).textContent).toBe('送信');
    probe.strings = { send: 'Ask' };
    await expect.poll(() => button(probe).textContent).toBe('Ask');
  });

  it('keeps only the last language when a slow locale arrives after a later change', async () => {
    await loadLocale('ko');
    const probe = await fixture<LocalizedProbe>(html`<localized-probe lang="en"></localized-probe>`);
    probe.setAttribute('lang', 'it'); // not loaded yet: arrives later
    probe.requestUpdate();
    await probe.updateComplete;
    probe.setAttribute('lang', 'ko'); // already loaded: arrives first
    probe.requestUpdate();
    await expect.poll(() => button(probe).textContent).toBe('보내기');
    await loadLocale('it');
    await probe.updateComplete;
    expect(button(probe).textContent).toBe('보내기');
  });
});
