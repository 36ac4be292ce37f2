/**
 * Where a webhook may point (decisions 626, 641): a console admin is not the machine's operator,
 * so a webhook reaches public addresses only, unless the operator allows the service's own
 * network (`--allow-private-webhooks`, decision 627). The check is on the addresses actually
 * connected to: a name is resolved once per attempt, every answer checked, and the request
 * connects to those (a name that turns private after it was added, DNS rebinding, is still
 * refused).
 */
import { type Resolve, type ResolvedAddress, bounded, hostAddresses } from '../kernel/addresses.js';

/** What a webhook may reach, and how names are resolved (a fake one in tests). */
export interface WebhookNetwork {
  allowPrivate: boolean;
  resolve: Resolve;
}

/** The setting as an operator writes it, for the words that name it. */
const ALLOW_PRIVATE_SETTING = '--allow-private-webhooks (AGENT_CHAT_ALLOW_PRIVATE_WEBHOOKS=1)';

/** A webhook's address refused, in words an admin or an operator reads. */
export class WebhookAddressError extends Error {
  override name = 'WebhookAddressError';
}

const HTTP_WORDS =
  'http:// is only for a receiver on the service’s own network; anywhere else the address must be https://.';

/**
 * The addresses the URL's host stands for, every one checked (throws WebhookAddressError in
 * words). A name that does not resolve rejects as the resolver does.
 */
export async function checkedAddresses(url: URL, network: WebhookNetwork): Promise<ResolvedAddress[]> {
  const { host, addresses, notPublic, anyPublic } = await hostAddresses(url, network.resolve);
  if (!addresses.length) throw new WebhookAddressError(`${host} resolves to no address.`);
  if (notPublic && !network.allowPrivate)
    throw new WebhookAddressError(
      `${notPublic}: webhooks reach the service’s own network only when its operator starts it with ${ALLOW_PRIVATE_SETTING}.`,
    );
  if (url.protocol === 'http:' && anyPublic) throw new WebhookAddressError(HTTP_WORDS);
  return addresses;
}

/** How long adding a webhook waits for its name to resolve: the admin waits too. */
const RESOLVE_AT_ADDING_MS = 5_000;

/**
 * Why the console refuses to add this address, or undefined: checked as a delivery would be,
 * except that a name that does not resolve now is kept (it is checked again at each attempt).
 */
export async function addressRefusal(url: URL, network: WebhookNetwork): Promise<string | undefined> {
  if (url.protocol === 'http:' && !network.allowPrivate)
    return `${HTTP_WORDS} A receiver there needs ${ALLOW_PRIVATE_SETTING}.`;
  try {
    await bounded(checkedAddresses(url, network), AbortSignal.timeout(RESOLVE_AT_ADDING_MS));
    return undefined;
  } catch (error) {
    return error instanceof WebhookAddressError ? error.message : undefined;
  }
}
