/** Parts held back by a page's modal dialog, shown when it closes. */
const waiting = new Set<HTMLElement>();

/** One listener for every part (adding it again to the same dialog adds nothing). */
function showWaiting(): void {
  const parts = [...waiting];
  waiting.clear();
  for (const part of parts) showOverPage(part);
}

/**
 * Shows a floating part (`popover="manual"`) in the top layer, over the page whatever its blocks
 * do (decision 561); nothing where the browser has no popovers (`popover` is then undefined) or
 * the part is already shown. Leaving the document takes a popover out, so a move calls it again.
 * While a page's modal dialog is open (a consent or login box) the part stays with the page,
 * under the dialog's backdrop, and goes on top once the dialog closes (decision 566): the top
 * layer is drawn in the order things enter it, so shown now it would float over the dialog, inert.
 */
export function showOverPage(node: Node): void {
  if (!(node instanceof HTMLElement) || !node.isConnected || !node.popover || node.matches(':popover-open'))
    return;
  const modal = node.ownerDocument.querySelector('dialog:modal');
  if (!modal) return node.showPopover();
  waiting.add(node);
  modal.addEventListener('close', showWaiting, { once: true });
}
