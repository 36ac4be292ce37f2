/** The console's file settings per integration, and visitors' files in the conversation review. */
import { describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../../../../contract/limits.js';
import type { FileInfo } from '../../../../contract/types.js';
import { consoleClient, withConsole } from '../../../fixtures/console.js';
import { pngHeader, uploadRequest } from '../../../fixtures/files.js';
import { PROJECT, chatRecords } from '../../../fixtures/service.js';

const settingsPath = `projects/${PROJECT.id}/integrations/int_demo/files`;

describe('console: files', () => {
  it('shows the defaults, saves settings within the bounds, audits them, and the uploads follow them', async () => {
    const { admin, service, session } = await withConsole();
    const defaults = await admin.call('GET', settingsPath);
    expect(defaults.body).toEqual({
      kinds: ['image', 'text', 'pdf'],
      max_bytes: MAX_FILE_BYTES,
      per_question: 5,
      limits: { max_bytes: MAX_FILE_BYTES, per_question: 5 },
    });
    const settings = {
      kinds: ['image'],
      max_bytes: { image: 2_000_000, text: 1000, pdf: 1000 },
      per_question: 1,
    };
    const saved = await admin.call('PUT', settingsPath, settings);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject(settings);
    expect((await admin.call('GET', settingsPath)).body).toMatchObject(settings);
    const audit = (await admin.call('GET', 'audit')).body.entries[0];
    expect(audit).toMatchObject({ action: 'integration.files', target: 'int_demo' });
    const token = await session('alice');
    expect((await service.handle(uploadRequest(token, new TextEncoder().encode('hi'), 'a.txt'))).status).toBe(
      415,
    );
    expect((await service.handle(uploadRequest(token, pngHeader(), 'a.png'))).status).toBe(201);
  });

  it('refuses settings past the bounds, for an unknown integration, and without the CSRF token', async () => {
    const { admin, service } = await withConsole();
    const good = { kinds: ['text'], max_bytes: { image: 1, text: 1, pdf: 1 }, per_question: 0 };
    for (const bad of [
      { ...good, kinds: ['svg'] },
      { ...good, per_question: 6 },
      { ...good, max_bytes: { ...good.max_bytes, pdf: MAX_FILE_BYTES.pdf + 1 } },
      { ...good, max_bytes: { image: 1, text: 1 } },
    ])
      expect((await admin.call('PUT', settingsPath, bad)).status).toBe(400);
    expect((await admin.call('PUT', `projects/${PROJECT.id}/integrations/int_nope/files`, good)).status).toBe(
      404,
    );
    expect((await admin.call('PUT', settingsPath, good, { 'X-CSRF-Token': 'wrong' })).status).toBe(403);
    expect((await consoleClient(service).call('GET', settingsPath)).status).toBe(401);
    expect((await admin.call('PUT', settingsPath, good)).status).toBe(200);
  });

  it("lists a question's files in the review and serves them to the admin as downloads, in this project only", async () => {
    const ctx = await withConsole();
    const { admin, service } = ctx;
    const token = await ctx.session('alice');
    const file = (await (
      await service.handle(uploadRequest(token, pngHeader(), 'shot.png'))
    ).json()) as FileInfo;
    const { records } = await chatRecords(ctx, token, {
      message: 'See this',
      attachments: [file.file_id],
    });
    const threadId = records[0].content.thread_id as string;
    const detail = (await admin.call('GET', `projects/${PROJECT.id}/conversations/${threadId}`)).body;
    expect(detail.messages[0].attachments).toEqual([file]);
    expect(detail.messages[1].attachments).toEqual([]);
    const download = await admin.call('GET', `projects/${PROJECT.id}/files/${file.file_id}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('Content-Disposition')).toMatch(/^attachment; filename="shot.png"/);
    const page = (await (
      await service.handle(
        uploadRequest(token, new TextEncoder().encode('hi <script>x()</script>'), 'invoice.html'),
      )
    ).json()) as FileInfo;
    const pageDownload = await admin.call('GET', `projects/${PROJECT.id}/files/${page.file_id}`);
    // Text the visitor named as a page is saved as text: opened from disk it never runs.
    expect(pageDownload.headers.get('Content-Disposition')).toMatch(
      /^attachment; filename="invoice.html.txt"/,
    );
    expect(download.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(download.headers.get('Cache-Control')).toBe('private, no-store');
    // A thumbnail's fetch is a read of the conversation; the Download button's is on record.
    expect((await service.storage.accounts.listAudit({ limit: 5, action: 'file.download' })).length).toBe(0);
    const saved = await admin.call('GET', `projects/${PROJECT.id}/files/${file.file_id}?download=1`);
    expect(saved.status).toBe(200);
    expect(await service.storage.accounts.listAudit({ limit: 5, action: 'file.download' })).toMatchObject([
      {
        actor: 'ada',
        projectId: PROJECT.id,
        target: threadId,
        detail: { file: file.file_id, name: 'shot.png', kind: 'image' },
      },
    ]);
    expect((await admin.call('GET', `projects/other/files/${file.file_id}`)).status).toBe(404);
    expect(
      (await consoleClient(service).call('GET', `projects/${PROJECT.id}/files/${file.file_id}`)).status,
    ).toBe(401);
  });
});
