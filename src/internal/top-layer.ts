/**
 * Shows a floating part (`popover="manual"`) in the top layer, over the page whatever its blocks
 * do (decision 561); nothing where the browser has no popovers (`popover` is then undefined) or
 * the part is already shown. Leaving the document takes a popover out, so a move calls it again.
 */
export function showOverPage(node: Node): void {
  if (node instanceof HTMLElement && node.isConnected && node.popover && !node.matches(':popover-open'))
    node.showPopover();
}
