/**
 * Every route of the console's API, called as an attacker would: signed out, from another
 * site with the admin's cookie (a cross-site form or fetch), and same-site without the CSRF
 * token. A route that read or changed anything before its guard would answer otherwise.
 */
import { describe, expect, it } from 'vitest';
import { consolePaths } from '../../../../contract/console.js';
import { pathPattern } from '../../../../service/http/route-table.js';
import { CONSOLE_ROUTES } from '../../../../service/routes/console/index.js';
import { PROJECT } from '../../../fixtures/service.js';
import { addAdmin, consoleClient, withConsole } from '../../../fixtures/console.js';

const P = PROJECT.id;
const THREAD = `th_${'0'.repeat(32)}`;
const FILE = `file_${'0'.repeat(32)}`;

/** Each route and method of the console's table (service/routes/console/index.ts), on ids that exist where one must. */
const CHANGES: [string, string][] = [
  ['POST', consolePaths.projects],
  ['PATCH', consolePaths.project(P)],
  ['DELETE', consolePaths.project(P)],
  ['POST', consolePaths.integrations(P)],
  ['PATCH', consolePaths.integration(P, 'int_demo')],
  ['DELETE', consolePaths.integration(P, 'int_demo')],
  ['POST', consolePaths.keys(P)],
  ['DELETE', consolePaths.key(P, 'key_x')],
  ['POST', consolePaths.keyRotation(P, 'key_x')],
  ['DELETE', consolePaths.conversation(P, THREAD)],
  ['DELETE', consolePaths.conversationOwner(P, THREAD)],
  ['PUT', consolePaths.integrationFiles(P, 'int_demo')],
  ['POST', consolePaths.docsSources(P)],
  ['PATCH', consolePaths.docsSource(P, 'src_x')],
  ['DELETE', consolePaths.docsSource(P, 'src_x')],
  ['POST', consolePaths.docsCrawl(P, 'src_x')],
  ['PUT', consolePaths.docsSynonyms(P)],
  ['POST', consolePaths.webhooks(P)],
  ['DELETE', consolePaths.webhook(P, 'wh_x')],
  ['POST', consolePaths.webhookTest(P, 'wh_x')],
  ['DELETE', consolePaths.session],
  ['DELETE', consolePaths.otherSessions],
  ['POST', consolePaths.admins],
  ['DELETE', consolePaths.admin('ada')],
  ['PATCH', consolePaths.admin('ada')],
  ['PUT', consolePaths.password],
];
/** The changes a viewer makes to their own account (decision 718): every other change is an admin's. */
const OWN: string[] = [
  `DELETE ${consolePaths.session}`,
  `DELETE ${consolePaths.otherSessions}`,
  `PUT ${consolePaths.password}`,
];
/** The reads a viewer is refused (decision 718): the keys, the audit log, and every conversation in one file. */
const ADMIN_READS: string[] = [
  consolePaths.keys(P),
  consolePaths.audit,
  `${consolePaths.conversations(P)}?format=csv`,
  `${consolePaths.conversations(P)}?format=jsonl`,
];
const READS: string[] = [
  consolePaths.projects,
  consolePaths.keys(P),
  consolePaths.activity(P),
  `${consolePaths.activity(P)}?format=csv`,
  consolePaths.conversations(P),
  `${consolePaths.conversations(P)}?format=csv`,
  consolePaths.conversation(P, THREAD),
  consolePaths.conversationOwner(P, THREAD),
  consolePaths.integrationFiles(P, 'int_demo'),
  consolePaths.file(P, FILE),
  consolePaths.audit,
  consolePaths.install,
  consolePaths.widgetReleases,
  consolePaths.docsSources(P),
  `${consolePaths.docsSearch(P)}?q=theme`,
  consolePaths.docsStale(P),
  consolePaths.webhooks(P),
  consolePaths.admins,
];
const path = (p: string) => p.slice(1);
const body = {
  name: 'X',
  url: 'https://evil.example/',
  public: true,
  synonyms: [],
  username: 'mallory',
  password: 'a password long enough',
  current_password: 'correct horse battery staple',
  new_password: 'a password long enough',
};

describe('every console route is guarded', () => {
  it("the lists below hold every route and method of the console's table", () => {
    // A route missing here would be tried by no attacker below: the Widget releases read was.
    const listed = [...CHANGES, ...READS.map((p) => ['GET', p.split('?')[0]] as const)];
    // Signing in and asking who is signed in are before any session: sign-in.test.ts tries them.
    const open = [`POST ${consolePaths.session}`, `GET ${consolePaths.session}`];
    const missing = CONSOLE_ROUTES.flatMap(([route, methods]) =>
      Object.keys(methods)
        .filter((method) => !open.includes(`${method} ${route}`))
        .filter((method) => !listed.some(([m, p]) => m === method && pathPattern(route).test(p)))
        .map((method) => `${method} ${route}`),
    );
    expect(missing).toEqual([]);
  });

  it('signed out: every read and every change is 401, and nothing changed', async () => {
    const { service } = await withConsole();
    const stranger = consoleClient(service);
    for (const p of READS) expect((await stranger.call('GET', path(p))).status, `GET ${p}`).toBe(401);
    for (const [method, p] of CHANGES)
      expect((await stranger.call(method, path(p), body)).status, `${method} ${p}`).toBe(401);
    expect((await service.storage.directory.listProjects()).map((p) => p.id)).toEqual([P]);
  });

  it("with the admin's cookie: a change from another site, or without the CSRF token, is 403 and changes nothing", async () => {
    const { admin, service } = await withConsole();
    const attempts: [string, Record<string, string>][] = [
      ['cross_site', { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }],
      ['cross_site', { Origin: 'https://agent.test.evil.example', 'Sec-Fetch-Site': 'same-site' }],
      ['csrf', { 'X-CSRF-Token': '' }],
    ];
    for (const [code, headers] of attempts)
      for (const [method, p] of CHANGES) {
        const response = await admin.call(method, path(p), body, headers);
        expect(response.status, `${method} ${p} ${JSON.stringify(headers)}`).toBe(403);
        expect(response.body.code, `${method} ${p}`).toBe(code);
      }
    expect((await service.storage.directory.listProjects()).map((p) => p.id)).toEqual([P]);
    expect((await service.storage.accounts.listAdmins()).map((a) => a.username)).toEqual(['ada']);
    expect((await admin.call('GET', 'projects')).status).toBe(200);
  });

  it("as a viewer: every change but their own account is 403 admin_only and changes nothing; reads are 200 but the admins' own", async () => {
    const { service } = await withConsole();
    await addAdmin(service.storage, 'vera', 'a viewer password long enough', 'viewer');
    const viewer = consoleClient(service);
    expect((await viewer.signIn('vera', 'a viewer password long enough')).body.role).toBe('viewer');
    for (const [method, p] of CHANGES) {
      if (OWN.includes(`${method} ${p}`)) continue;
      const response = await viewer.call(method, path(p), { ...body, role: 'viewer' });
      expect(response.status, `${method} ${p}`).toBe(403);
      expect(response.body.code, `${method} ${p}`).toBe('admin_only');
      expect(response.body.detail, `${method} ${p}`).toContain('viewer');
    }
    for (const p of READS) {
      const response = await viewer.call('GET', path(p));
      if (ADMIN_READS.includes(p)) {
        expect(response.status, `GET ${p}`).toBe(403);
        expect(response.body.code, `GET ${p}`).toBe('admin_only');
      } else expect([200, 404], `GET ${p}`).toContain(response.status);
    }
    expect((await service.storage.directory.listProjects()).map((p) => p.id)).toEqual([P]);
    expect((await service.storage.accounts.listAdmins()).map((a) => [a.username, a.role])).toEqual([
      ['ada', 'admin'],
      ['vera', 'viewer'],
    ]);
    const entries = await service.storage.accounts.listAudit({ limit: 100, actor: 'vera' });
    // Activity's counts as CSV are a viewer's to take, and on record as an admin's are.
    expect(entries.map((e) => e.action)).toEqual(['activity.export', 'sign_in']);
    // Their own account stays theirs: a new password, then signing out.
    const own = await viewer.call('PUT', 'password', {
      current_password: 'a viewer password long enough',
      new_password: 'another viewer password',
    });
    expect(own.status).toBe(200);
    expect((await viewer.call('DELETE', 'session')).status).toBe(204);
  });
});
