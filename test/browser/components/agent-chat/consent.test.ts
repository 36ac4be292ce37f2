/** `consent-required`: nothing reaches the device (IndexedDB, sessionStorage) until grantConsent(); revokeConsent() wipes it. */
import { describe, expect, vi } from 'vitest';
import { test } from '../../../msw/test.js';
import { ownerKeyOf } from '../../../msw/reference.js';
import { dumpAllIndexedDb } from '../../../helpers/idb.js';
import { fixtureChat, settled, typeMessage } from '../../../helpers/chat-fixture.js';

describe('<agent-chat> consent', () => {
  test('with consent-required nothing reaches IndexedDB until grantConsent(); revokeConsent() wipes it', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const opens = vi.spyOn(indexedDB, 'open');
    try {
      const el = await fixtureChat({ ownerKey: ownerKeyOf('alice'), consentRequired: true });
      await el.send('How do I theme it?');
      await settled(el);
      await typeMessage(el, 'a draft before consent');
      dispatchEvent(new PageTransitionEvent('pagehide'));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(opens).not.toHaveBeenCalled();
      // Nor sessionStorage, where a pagehide keeps the drafts once consent is given (decision 443).
      expect(Object.keys(sessionStorage)).toEqual([]);
      opens.mockRestore();
      expect(await dumpAllIndexedDb()).toEqual([]);

      await el.grantConsent();
      await expect.poll(async () => (await dumpAllIndexedDb()).join('\n')).toContain('How do I theme it?');

      await el.revokeConsent();
      await typeMessage(el, 'a draft after revoking');
      dispatchEvent(new PageTransitionEvent('pagehide'));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await dumpAllIndexedDb()).toEqual([]);
      expect(Object.keys(sessionStorage)).toEqual([]);
    } finally {
      opens.mockRestore();
    }
  });
});
