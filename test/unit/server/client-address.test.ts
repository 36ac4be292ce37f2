import { describe, expect, it } from 'vitest';
import { addressKey, checkTrustProxy, clientAddress } from '../../../server/client-address.js';

const request = (headers: Record<string, string> = {}) =>
  new Request('https://shop.example/api/agent-session', { method: 'POST', headers });

describe('clientAddress: who is calling, as far as the host can vouch', () => {
  it('takes the socket by default and ignores every forwarding header a client can write', () => {
    const forged = request({ 'X-Forwarded-For': '6.6.6.6', 'CF-Connecting-IP': '7.7.7.7' });
    expect(clientAddress(forged, { clientAddress: '198.51.100.7' }, 0)).toBe('198.51.100.7');
    expect(clientAddress(forged, { clientAddress: '::ffff:198.51.100.7' }, 0)).toBe('198.51.100.7');
    expect(clientAddress(forged, undefined, 0)).toBeUndefined();
  });

  it('walks N trusted hops back through X-Forwarded-For, so a forged left part is never taken', () => {
    // A client sent "6.6.6.6" itself; the one proxy appended the address it saw.
    const oneProxy = request({ 'X-Forwarded-For': '6.6.6.6, 203.0.113.9' });
    expect(clientAddress(oneProxy, { clientAddress: '10.0.0.2' }, 1)).toBe('203.0.113.9');
    // Two proxies (a CDN, then a load balancer): the second appended the CDN's address.
    const twoProxies = request({ 'X-Forwarded-For': '6.6.6.6, 203.0.113.9, 10.0.0.1' });
    expect(clientAddress(twoProxies, { clientAddress: '10.0.0.2' }, 2)).toBe('203.0.113.9');
    // Fewer entries than proxies: the furthest one seen.
    expect(
      clientAddress(request({ 'X-Forwarded-For': '203.0.113.9' }), { clientAddress: '10.0.0.2' }, 3),
    ).toBe('203.0.113.9');
    // No header at all: the socket.
    expect(clientAddress(request(), { clientAddress: '10.0.0.2' }, 1)).toBe('10.0.0.2');
  });

  it('reads ports, brackets and IPv6, and falls back to the socket on garbage', () => {
    expect(
      clientAddress(request({ 'X-Forwarded-For': '[2001:DB8::1]:443' }), { clientAddress: '10.0.0.2' }, 1),
    ).toBe('2001:db8::1');
    expect(
      clientAddress(request({ 'X-Forwarded-For': '203.0.113.9:5120' }), { clientAddress: '10.0.0.2' }, 1),
    ).toBe('203.0.113.9');
    expect(clientAddress(request({ 'X-Forwarded-For': 'unknown' }), { clientAddress: '10.0.0.2' }, 1)).toBe(
      '10.0.0.2',
    );
    expect(clientAddress(request({ 'X-Forwarded-For': '999.1.1.1' }), { clientAddress: '10.0.0.2' }, 1)).toBe(
      '10.0.0.2',
    );
  });

  it('believes CF-Connecting-IP only when told to', () => {
    const viaCloudflare = request({ 'CF-Connecting-IP': '2001:db8:1:2:3:4:5:6' });
    expect(clientAddress(viaCloudflare, undefined, 'cloudflare')).toBe('2001:db8:1:2:3:4:5:6');
    expect(clientAddress(viaCloudflare, undefined, 0)).toBeUndefined();
  });

  it('checks the setting once, with a message that says what is allowed', () => {
    expect(checkTrustProxy(undefined)).toBe(0);
    expect(checkTrustProxy(2)).toBe(2);
    expect(() => checkTrustProxy(-1)).toThrow(/hop count from 0 to 16 or "cloudflare"/);
    expect(() => checkTrustProxy('yes' as never)).toThrow(/trustProxy/);
  });
});

describe('addressKey', () => {
  it('counts IPv4 addresses one by one and IPv6 addresses by their /64', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:ffff::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('64:ff9b::1.2.3.4')).toBe('64:ff9b:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });
});
