import { afterEach, describe, expect, it } from 'vitest';

// No static import of the element: this file starts with <agent-chat> undefined, as a page
// whose framework renders before the widget's script has run.
afterEach(() => document.body.replaceChildren());

describe('<agent-chat> registered late', () => {
  it('keeps properties set on the element before it was defined', async () => {
    expect(customElements.get('agent-chat')).toBeUndefined();
    const getSessionToken = async () => ({ token: 't', expiresAt: Date.now() + 60_000 });
    const el = document.createElement('agent-chat') as unknown as HTMLElement & Record<string, unknown>;
    el.setAttribute('project-id', 'from-attribute');
    // What a framework (or a ref) does before the upgrade: plain own properties on an HTMLElement.
    el.getSessionToken = getSessionToken;
    el.integrationId = 'int_late';
    el.theme = 'dark';
    document.body.append(el);

    // The package root registers <agent-chat> (the loader) as it is evaluated.
    await import('../../../src/index.js');
    expect(customElements.get('agent-chat')).toBeDefined();
    // updateComplete waits for the element itself, which the loader then fetches.
    await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;

    expect(el.getSessionToken).toBe(getSessionToken);
    expect(el.integrationId).toBe('int_late');
    expect(el.projectId).toBe('from-attribute');
    expect(el.getAttribute('theme')).toBe('dark');
    // And a framework that checks `prop in element` (React 19) now finds the property.
    expect('getSessionToken' in document.createElement('agent-chat')).toBe(true);
  });
});
