/** Where a webhook may point (decisions 626-627, 641): each range that is not the public internet, each spelling of it, every answer of a name. */
import { describe, expect, it } from 'vitest';
import { type ResolvedAddress, nonPublicKind } from '../../../../service/kernel/addresses.js';
import {
  type WebhookNetwork,
  WebhookAddressError,
  addressRefusal,
  checkedAddresses,
} from '../../../../service/notifications/address.js';

/** A resolver that knows a few names and counts its questions. */
function fakeNetwork(names: Record<string, string[]>, allowPrivate = false) {
  const asked: string[] = [];
  const network: WebhookNetwork = {
    allowPrivate,
    resolve: async (host) => {
      asked.push(host);
      const found = names[host];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return found.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  };
  return { network, asked };
}

describe('nonPublicKind', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['198.18.0.1', 'benchmarking'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['fbff::1', 'reserved'],
    ['fec0::1', 'site-local'],
    ['::ffff:127.0.0.1', 'loopback: 127.0.0.1 inside IPv6'],
    ['[::ffff:7f00:1]', 'loopback: 127.0.0.1 inside IPv6'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['0:0:0:0:0:ffff:10.1.2.3', 'private: 10.1.2.3 inside IPv6'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:0a00:0001::1', 'private: 10.0.0.1 inside IPv6'],
    ['::7f00:1', 'IPv4-compatible'],
  ])('%s is %s', (address, kind) => {
    expect(nonPublicKind(address)).toContain(kind);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '169.253.255.255',
    '192.169.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:0808:0808::1',
  ])('%s is public', (address) => {
    expect(nonPublicKind(address)).toBeUndefined();
  });

  // The IANA IPv6 special-purpose registry's ranges that are not globally reachable, and the
  // documentation ones: an address inside each (its first and last), and one just outside.
  it.each([
    [
      '2001::/32',
      'Teredo',
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
      '2001:1::4',
    ],
    ['2001:2::/48', 'benchmarking', ['2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff'], '2001:2:1::1'],
    ['2001:10::/28', 'ORCHID', ['2001:10::1', '2001:1f:ffff::1'], '2001:f:ffff::1'],
    ['2001:20::/28', 'ORCHIDv2', ['2001:20::1', '2001:2f:ffff::1'], '2001:30::1'],
    ['2001:30::/28', 'DRIP', ['2001:30::1', '2001:3f:ffff::1'], '2001:40::1'],
    ['2001::/23', 'IETF protocol assignments', ['2001:1::4', '2001:1ff:ffff::1'], '2001:200::1'],
    ['2001:db8::/32', 'documentation', ['2001:db8::1', '2001:db8:ffff:ffff::1'], '2001:db9::1'],
    ['3fff::/20', 'documentation', ['3fff::1', '3fff:fff:ffff::1'], '3fff:1000::1'],
    ['5f00::/16', 'segment-routing', ['5f00::1', '5f00:ffff::1'], '5f01::1'],
    ['100:0:0:1::/64', 'dummy', ['100:0:0:1::1', '100:0:0:1:ffff::1'], '100:0:0:2::1'],
    ['outside 2000::/3', 'reserved', ['4000::1', '1fff:ffff::1'], '2000::1'],
  ])('%s is %s inside, not just outside', (_, kind, inside, outside) => {
    for (const address of inside) expect(nonPublicKind(address)).toContain(kind);
    expect(nonPublicKind(outside) ?? '').not.toContain(kind);
  });

  it.each([
    ['2002:c0a8:101::1', 'private: 192.168.1.1 inside IPv6'],
    ['2002:7f00:1::', 'loopback: 127.0.0.1 inside IPv6'],
    ['2002:a9fe:a9fe:ffff::1', 'link-local'],
    ['2002:c000:201::1', 'documentation: 192.0.2.1 inside IPv6'],
    ['2002::1', 'unspecified'],
  ])('6to4 %s is checked by the IPv4 address it carries: %s', (address, kind) => {
    expect(nonPublicKind(address)).toContain(kind);
  });

  it.each([
    ['192.0.2.7', '192.0.3.0'],
    ['198.51.100.255', '198.51.101.0'],
    ['203.0.113.0', '203.0.112.255'],
  ])('IPv4 documentation %s is refused, %s just outside is public', (inside, outside) => {
    expect(nonPublicKind(inside)).toContain('documentation');
    expect(nonPublicKind(outside)).toBeUndefined();
  });

  it.each([
    ['2001:1::1', 'PCP anycast'],
    ['2001:1::2', 'TURN anycast'],
    ['2001:1::3', 'DNS-SD SRP anycast'],
    ['2001:3::1', 'AMT'],
    ['2001:3:ffff:ffff::1', 'AMT'],
    ['2001:4:112::1', 'AS112'],
    ['2001:200::1', 'just past 2001::/23'],
    ['3ffe:ffff::1', 'just before 3fff::/20'],
    ['2003::1', 'just past 6to4'],
  ])('%s (%s), globally reachable, is public', (address) => {
    expect(nonPublicKind(address)).toBeUndefined();
  });

  it('an answer that is not an IP address is not public', () => {
    expect(nonPublicKind('localhost')).toBe('not an IP address');
  });
});

describe('checkedAddresses', () => {
  it.each([
    'https://2130706433/hook',
    'https://0x7f.1/hook',
    'https://0x7f000001/hook',
    'https://017700000001/hook',
    'https://127.1/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[0:0:0:0:0:ffff:7f00:1]/hook',
    'https://[::1]:8443/hook',
    'https://0/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fd00::5]/hook',
  ])('refuses the literal %s without asking the resolver', async (url) => {
    const { network, asked } = fakeNetwork({});
    await expect(checkedAddresses(new URL(url), network)).rejects.toThrow(WebhookAddressError);
    await expect(checkedAddresses(new URL(url), network)).rejects.toThrow(/allow-private-webhooks/);
    expect(asked).toEqual([]);
  });

  it('checks every address a name resolves to: one private among public ones is refused, in words', async () => {
    const { network } = fakeNetwork({
      'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
      'mixed.example.com': ['93.184.215.14', '10.0.0.7', '2606:2800:21f:cb07::1'],
      'six.example.com': ['2606:2800:21f:cb07::1', 'fe80::1'],
    });
    expect(await checkedAddresses(new URL('https://hooks.example.com/x'), network)).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
    await expect(checkedAddresses(new URL('https://mixed.example.com/x'), network)).rejects.toThrow(
      'mixed.example.com resolves to 10.0.0.7, not a public address (private): webhooks reach the service’s own network only when its operator starts it with --allow-private-webhooks (AGENT_CHAT_ALLOW_PRIVATE_WEBHOOKS=1).',
    );
    await expect(checkedAddresses(new URL('https://six.example.com/x'), network)).rejects.toThrow(
      /fe80::1, not a public address \(link-local\)/,
    );
  });

  it('with the setting, private addresses pass, and http:// only to them', async () => {
    const { network } = fakeNetwork(
      { 'chat.lan': ['192.168.1.20'], 'hooks.example.com': ['93.184.215.14'] },
      true,
    );
    expect(await checkedAddresses(new URL('http://chat.lan:8065/hooks/x'), network)).toEqual([
      { address: '192.168.1.20', family: 4 },
    ]);
    expect(await checkedAddresses(new URL('http://127.0.0.1:9/hook'), network)).toHaveLength(1);
    expect(await checkedAddresses(new URL('https://hooks.example.com/x'), network)).toHaveLength(1);
    await expect(checkedAddresses(new URL('http://hooks.example.com/x'), network)).rejects.toThrow(
      /http:\/\/ is only for a receiver on the service’s own network/,
    );
  });

  it('a name that does not resolve rejects as the resolver does (not as a refusal)', async () => {
    const { network } = fakeNetwork({});
    const error = await checkedAddresses(new URL('https://nowhere.test/x'), network).catch((e) => e);
    expect(error).not.toBeInstanceOf(WebhookAddressError);
    expect(error.code).toBe('ENOTFOUND');
  });
});

describe('addressRefusal (adding a webhook)', () => {
  it('refuses http:// without the setting, and a name resolving to a private address; keeps a name that does not resolve yet', async () => {
    const { network } = fakeNetwork({ 'metadata.example.com': ['169.254.169.254'] });
    expect(await addressRefusal(new URL('http://localhost:9/hook'), network)).toMatch(
      /^http:\/\/ is only for .* needs --allow-private-webhooks/,
    );
    expect(await addressRefusal(new URL('https://metadata.example.com/'), network)).toMatch(
      /169\.254\.169\.254, not a public address \(link-local, where cloud metadata answers\)/,
    );
    expect(await addressRefusal(new URL('https://not-yet.test/hook'), network)).toBeUndefined();
    const allowed = fakeNetwork({ localhost: ['127.0.0.1', '::1'] }, true).network;
    expect(await addressRefusal(new URL('http://localhost:9/hook'), allowed)).toBeUndefined();
  });
});
