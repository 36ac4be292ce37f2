/**
 * The loader's stand-in launcher, drawn until the element arrives, sits over the viewport as the
 * element's own does (decision 561): a page block with a transform does not hold it.
 */
import { page } from 'vitest/browser';
import { describe, expect, it } from 'vitest';
import { defineLoader } from '../../../src/loader/loader.js';

// The element never arrives: the stand-in stays.
defineLoader(() => new Promise(() => {}));

/** An `<agent-chat>` of a project, not yet on the page. */
function chatElement(): HTMLElement {
  const el = document.createElement('agent-chat');
  el.setAttribute('project-id', 'proj_1');
  el.setAttribute('integration-id', 'int_1');
  return el;
}

describe('<agent-chat> (the loader) in a block with a transform', () => {
  it('draws its stand-in launcher in the corner of the viewport, over the page', async () => {
    await page.viewport(1000, 800);
    const block = document.createElement('div');
    block.style.cssText = 'margin: 40px; transform: translateY(0); position: relative; z-index: 1';
    const cover = document.createElement('div');
    cover.style.cssText = 'position: fixed; right: 0; bottom: 0; width: 200px; height: 200px; z-index: 10';
    const el = chatElement();
    block.append(el);
    document.body.append(block, cover);
    await expect.element(page.getByRole('button', { name: 'Open chat' })).toBeInTheDocument();

    const launcher = el.shadowRoot!.querySelector('.launcher')!.getBoundingClientRect();
    expect([launcher.right, launcher.bottom]).toEqual([innerWidth - 20, innerHeight - 20]);
    expect(document.elementFromPoint(launcher.x + 28, launcher.y + 28)).toBe(el);
    block.remove();
    cover.remove();
  });

  it('is over the viewport again after the page moves it, before the element has come', async () => {
    await page.viewport(1000, 800);
    const [from, to] = [document.createElement('div'), document.createElement('div')];
    to.style.cssText = 'margin: 40px; transform: translateY(0)';
    const el = chatElement();
    from.append(el);
    document.body.append(from, to);
    await expect.element(page.getByRole('button', { name: 'Open chat' })).toBeInTheDocument();

    to.append(el);
    const launcher = el.shadowRoot!.querySelector<HTMLElement>('.launcher')!;
    expect(launcher.matches(':popover-open')).toBe(true);
    const box = launcher.getBoundingClientRect();
    expect([box.right, box.bottom]).toEqual([innerWidth - 20, innerHeight - 20]);
    from.remove();
    to.remove();
  });

  it("waits behind a page's modal dialog, and is over the page once the dialog closes", async () => {
    await page.viewport(1000, 800);
    const dialog = document.createElement('dialog');
    dialog.textContent = 'Accept cookies?';
    document.body.append(dialog);
    dialog.showModal();
    const el = chatElement();
    document.body.append(el);
    await expect
      .element(page.getByRole('button', { name: 'Open chat', includeHidden: true }))
      .toBeInTheDocument();
    const launcher = el.shadowRoot!.querySelector<HTMLElement>('.launcher')!;
    const box = launcher.getBoundingClientRect();
    expect(launcher.matches(':popover-open')).toBe(false);
    expect(document.elementFromPoint(box.x + 28, box.y + 28), 'over the modal, inert').not.toBe(el);

    const closed = new Promise((resolve) => dialog.addEventListener('close', resolve, { once: true }));
    dialog.close();
    await closed;
    await expect.poll(() => launcher.matches(':popover-open')).toBe(true);
    expect(document.elementFromPoint(box.x + 28, box.y + 28)).toBe(el);
    el.remove();
    dialog.remove();
  });
});
