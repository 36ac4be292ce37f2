import type { BrowserCommand } from 'vitest/node';

/** What Chromium drew a run of text with: a font it loaded from the page, or one of the machine's. */
export interface PlatformFont {
  familyName: string;
  isCustomFont: boolean;
  /** One element that used it, for the error message. */
  example: string;
}

interface DomNode {
  nodeId: number;
  nodeType: number;
  nodeName: string;
  nodeValue: string;
  localName?: string;
  attributes?: string[];
  children?: DomNode[];
  shadowRoots?: DomNode[];
  contentDocument?: DomNode;
  pseudoElements?: DomNode[];
}

interface Cdp {
  send(method: string, params?: object): Promise<unknown>;
  detach(): Promise<void>;
}

function describeNode(node: DomNode): string {
  const attrs = node.attributes ?? [];
  const id = attrs[attrs.indexOf('id') + 1];
  const cls = attrs[attrs.indexOf('class') + 1];
  return `<${node.localName ?? node.nodeName.toLowerCase()}${attrs.includes('id') ? `#${id}` : ''}${attrs.includes('class') ? `.${cls.split(/\s+/).join('.')}` : ''}>`;
}

/** Elements inside the test frame (not the runner's own page) that hold visible text. */
function textHolders(node: DomNode, inFrame: boolean, out: DomNode[]): DomNode[] {
  if (inFrame && node.children?.some((c) => c.nodeType === 3 && c.nodeValue.trim())) out.push(node);
  for (const child of [...(node.children ?? []), ...(node.shadowRoots ?? []), ...(node.pseudoElements ?? [])])
    textHolders(child, inFrame, out);
  if (node.contentDocument) textHolders(node.contentDocument, true, out);
  return out;
}

/**
 * The fonts every piece of text in the test frame was drawn with, through the DevTools protocol,
 * shadow roots included. The screenshot tests assert these are all fonts the page loaded from
 * npm: one glyph from a system font makes the baselines depend on the machine.
 */
export const platformFonts: BrowserCommand<[]> = async (context): Promise<PlatformFont[]> => {
  if (context.provider.name !== 'playwright') throw new Error('platformFonts needs the playwright provider');
  const page = (context as unknown as { page: { context(): { newCDPSession(page: unknown): Promise<Cdp> } } })
    .page;
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('DOM.enable');
    await cdp.send('CSS.enable');
    const { root } = (await cdp.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: DomNode };
    const fonts = new Map<string, PlatformFont>();
    for (const node of textHolders(root, false, [])) {
      const { fonts: used } = (await cdp.send('CSS.getPlatformFontsForNode', { nodeId: node.nodeId })) as {
        fonts: Array<{ familyName: string; isCustomFont: boolean }>;
      };
      for (const font of used) {
        const key = `${font.familyName}|${font.isCustomFont}`;
        if (!fonts.has(key))
          fonts.set(key, {
            familyName: font.familyName,
            isCustomFont: font.isCustomFont,
            example: describeNode(node),
          });
      }
    }
    return [...fonts.values()];
  } finally {
    await cdp.detach();
  }
};
