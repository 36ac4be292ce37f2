/**
 * Files in and out of the tray are heard (decision 584): picked, pasted or dropped, "… attached";
 * taken out, "… removed", both politely; a refusal is an alert; a sent question says nothing.
 */
import { describe, expect } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import {
  fileTransfer,
  fixtureChat,
  logFile,
  pickFiles,
  nextAnswerEnd,
  politeWords,
  settled,
  textareaOf,
} from '../../../helpers/chat-fixture.js';

const tray = () => page.getByRole('list', { name: 'Attached files' });

describe('<agent-chat> attachments are announced', () => {
  test('picked, pasted and dropped files are said to be attached; a removed one, removed', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    await pickFiles(el, logFile('report.log'), logFile('notes.md', '# Notes'));
    await expect.poll(() => politeWords(el)).toContain('report.log and notes.md attached');
    await expect.element(tray().getByRole('button', { name: 'Remove report.log' })).toBeVisible();
    await chaiExpect(el).to.be.accessible();

    textareaOf(el).dispatchEvent(
      new ClipboardEvent('paste', {
        clipboardData: fileTransfer(logFile('pasted.txt')),
        bubbles: true,
        cancelable: true,
        composed: true,
      }),
    );
    await expect.poll(() => politeWords(el)).toContain('pasted.txt attached');

    el.shadowRoot!.querySelector('.panel')!.dispatchEvent(
      new DragEvent('drop', {
        dataTransfer: fileTransfer(logFile('dropped.log')),
        bubbles: true,
        composed: true,
        cancelable: true,
      }),
    );
    await expect.poll(() => politeWords(el)).toContain('dropped.log attached');

    (tray().getByRole('button', { name: 'Remove report.log' }).element() as HTMLElement).focus();
    await userEvent.keyboard('{Enter}');
    await expect.poll(() => politeWords(el)).toContain('report.log removed');
    await expect.element(tray().getByRole('button', { name: 'Remove report.log' })).not.toBeInTheDocument();
    await chaiExpect(el).to.be.accessible();

    // The files that go with a question leave the tray unannounced: nothing was removed.
    await expect
      .poll(() =>
        tray()
          .getByRole('listitem')
          .elements()
          .every((i) => i.classList.contains('ready')),
      )
      .toBe(true);
    const ended = nextAnswerEnd(el);
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await ended;
    await settled(el);
    expect(politeWords(el).join(' ')).not.toMatch(/(notes\.md|pasted\.txt|dropped\.log)[\w., ]* removed/);
    void backend;
  });

  test('a refusal (the type, the size, the count) is an alert, and the refused file is not said to be attached', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    el.setAttribute('attachment-max-files', '2');
    el.setAttribute('attachment-max-size', '100');
    await settled(el);
    await pickFiles(el, new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' }));
    await expect
      .element(page.getByRole('alert'))
      .toHaveTextContent("logo.svg can't be attached. You can attach images, text files, and PDFs.");
    expect(politeWords(el).join(' ')).not.toMatch(/attached$/);
    await chaiExpect(el).to.be.accessible();

    await pickFiles(el, logFile('big.log', 'x'.repeat(200)));
    await expect.element(page.getByRole('alert')).toHaveTextContent('big.log is too large');
    expect(politeWords(el).join(' ')).not.toContain('big.log attached');

    await pickFiles(el, logFile('a.log'), logFile('b.log'), logFile('c.log'));
    await expect
      .element(page.getByRole('alert'))
      .toHaveTextContent('You can attach up to 2 files to a question.');
    await expect.poll(() => politeWords(el)).toContain('a.log and b.log attached');
    await chaiExpect(el).to.be.accessible();
    void backend;
  });
});
