import { describe, expect, it } from 'vitest';
import { createUrlGuard, isForbiddenAddress, parseFetchUrl, type RefusalReason, type UrlGuard } from '../../src/tools/url_guard.js';

/** The reason `raw` is refused by `guard`, or `'allowed'`. */
function verdict(guard: UrlGuard, raw: string): RefusalReason | 'allowed' {
  const parsed = parseFetchUrl(raw);
  if (!(parsed instanceof URL)) return parsed.reason;
  return guard.checkUrl(parsed)?.reason ?? 'allowed';
}

describe('parseFetchUrl', () => {
  it.each([
    ['http://2130706433/', '127.0.0.1', 'decimal'],
    ['http://0x7f000001/', '127.0.0.1', 'one hex number'],
    ['http://0177.0.0.1/', '127.0.0.1', 'octal'],
    ['http://0x7f.1/', '127.0.0.1', 'hex and short'],
    ['http://127.1/', '127.0.0.1', 'short'],
    ['http://127.0.0.1./', '127.0.0.1', 'trailing dot'],
    ['http://0/', '0.0.0.0', 'zero'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1', 'percent-encoded'],
    ['http://①②⑦.0.0.1/', '127.0.0.1', 'full-width digits'],
    ['http://[::1]:8080/', '[::1]', 'bracketed IPv6'],
    ['http://[0:0:0:0:0:0:0:1]/', '[::1]', 'uncompressed IPv6'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]', 'IPv4-mapped, dotted'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', '[::ffff:7f00:1]', 'IPv4-mapped, hex'],
    ['HTTP://EXAMPLE.com/', 'example.com', 'upper case'],
  ])('normalises %s to the host %s (%s)', (raw, host) => {
    const parsed = parseFetchUrl(raw);
    expect(parsed).toBeInstanceOf(URL);
    expect((parsed as URL).hostname).toBe(host);
  });

  it.each([
    ['file:///etc/passwd', 'scheme'],
    ['ftp://example.com/', 'scheme'],
    ['gopher://example.com/', 'scheme'],
    ['javascript:alert(1)', 'scheme'],
    ['data:text/plain,hi', 'scheme'],
    ['http://user:secret@example.com/', 'credentials'],
    ['http://user@example.com/', 'credentials'],
    ['https://:secret@example.com/', 'credentials'],
    ['not a url', 'invalid_url'],
    ['http://256.1.1.1/', 'invalid_url'],
    ['http://[fe80::1%25eth0]/', 'invalid_url'],
    ['', 'invalid_url'],
  ] as const)('refuses %s: %s', (raw, reason) => {
    const parsed = parseFetchUrl(raw);
    expect(parsed instanceof URL ? 'parsed' : parsed.reason).toBe(reason);
  });
});

describe('isForbiddenAddress', () => {
  it.each([
    ['0.0.0.0', 'this network'],
    ['0.255.255.255', 'this network'],
    ['10.0.0.1', 'private 10/8'],
    ['10.255.255.255', 'private 10/8'],
    ['100.64.0.1', 'shared CGNAT 100.64/10'],
    ['100.127.255.255', 'shared CGNAT 100.64/10'],
    ['100.100.100.200', 'Alibaba metadata, in 100.64/10'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['192.168.1.1', 'private 192.168/16'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'IPv6 loopback'],
    ['0:0:0:0:0:0:0:1', 'IPv6 loopback, long form'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fd00:ec2::254', 'AWS IPv6 metadata'],
    ['FD00:EC2::254', 'AWS IPv6 metadata, upper case'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with a zone'],
    ['febf:ffff::1', 'IPv6 link-local, top of the range'],
    ['ff02::1', 'IPv6 multicast'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata'],
    ['::ffff:10.1.2.3', 'IPv4-mapped private'],
    ['64:ff9b::7f00:1', 'NAT64 loopback'],
    ['64:ff9b::169.254.169.254', 'NAT64 metadata, dotted'],
    ['64:ff9b::c0a8:101', 'NAT64 private'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['fec0::1', 'IPv6 site-local (deprecated)'],
    ['feff:ffff::1', 'IPv6 site-local, top of the range'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a9fe:a9fe::1', '6to4 of cloud metadata'],
    ['2002:c0a8:101:5::1', '6to4 of private 192.168.1.1, with a subnet'],
    ['2002:a00:1::', '6to4 of private 10.0.0.1'],
    ['2002::', '6to4 of 0.0.0.0'],
    ['2001::1', 'Teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo, whatever client it encodes'],
    ['64:ff9b:1::808:808', 'local-use NAT64, whatever it embeds'],
    ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'local-use NAT64, top of the range'],
    ['[::1]', 'bracketed'],
    ['localhost', 'not an IP literal: refused, fail closed'],
    ['', 'empty'],
    ['127.1', 'not a canonical literal'],
  ])('refuses %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    ['1.1.1.1', 'public'],
    ['8.8.8.8', 'public'],
    ['9.255.255.255', 'just below 10/8'],
    ['11.0.0.0', 'just above 10/8'],
    ['100.63.255.255', 'just below 100.64/10'],
    ['100.128.0.0', 'just above 100.64/10'],
    ['126.255.255.255', 'just below 127/8'],
    ['169.253.255.255', 'just below 169.254/16'],
    ['172.15.255.255', 'just below 172.16/12'],
    ['172.32.0.0', 'just above 172.16/12'],
    ['192.0.1.1', 'between 192.0.0/24 and 192.0.2/24'],
    ['192.167.255.255', 'just below 192.168/16'],
    ['198.17.255.255', 'just below 198.18/15'],
    ['198.20.0.0', 'just above 198.18/15'],
    ['223.255.255.255', 'just below multicast'],
    ['2606:4700:4700::1111', 'public IPv6'],
    ['2001:db9::1', 'just above 2001:db8::/32'],
    ['fbff:ffff::1', 'just below fc00::/7'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public'],
    ['::ffff:808:808', 'IPv4-mapped public, hex'],
    ['64:ff9b::8.8.8.8', 'NAT64 public'],
    ['64:ff9b::808:808', 'NAT64 public, hex'],
    ['2002:808:808::1', '6to4 of a public IPv4 address'],
    ['2002:5db8:d822:1::', '6to4 of a public IPv4 address, with a subnet'],
    ['2003::1', 'just above 2002::/16'],
    ['2001:1::1', 'just above Teredo'],
    ['64:ff9b:2::1', 'just above local-use NAT64'],
  ])('lets %s through (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('createUrlGuard', () => {
  const strict = createUrlGuard([]);

  it.each([
    ['http://example.com/', 'allowed'],
    ['https://1.1.1.1/dns', 'allowed'],
    ['http://[2606:4700:4700::1111]/', 'allowed'],
    ['http://127.0.0.1:8080/', 'forbidden_address'],
    ['http://2130706433/', 'forbidden_address'],
    ['http://0177.0.0.1/', 'forbidden_address'],
    ['http://0x7f.1/', 'forbidden_address'],
    ['http://127.1/', 'forbidden_address'],
    ['http://0/', 'forbidden_address'],
    ['http://169.254.169.254/latest/meta-data/', 'forbidden_address'],
    ['http://0xa9fea9fe/', 'forbidden_address'],
    ['http://[::1]/', 'forbidden_address'],
    ['http://[::ffff:127.0.0.1]/', 'forbidden_address'],
    ['http://[::ffff:7f00:1]/', 'forbidden_address'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'forbidden_address'],
    ['http://[fd00:ec2::254]/', 'forbidden_address'],
    ['http://[fe80::1]/', 'forbidden_address'],
    ['http://[fec0::1]/', 'forbidden_address'],
    ['http://[2002:a9fe:a9fe::]/', 'forbidden_address'],
    ['http://[2002:808:808::]/', 'allowed'],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'forbidden_address'],
    ['http://[64:ff9b:1::a00:1]/', 'forbidden_address'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'forbidden_host'],
    ['http://METADATA.google.internal./', 'forbidden_host'],
    ['http://metadata/', 'forbidden_host'],
    ['http://metadata.goog/', 'forbidden_host'],
    ['http://instance-data/latest/', 'forbidden_host'],
    ['http://instance-data.ec2.internal/', 'forbidden_host'],
    ['ftp://example.com/', 'scheme'],
    ['http://a:b@example.com/', 'credentials'],
  ] as const)('without an allow list, %s is %s', (raw, expected) => {
    expect(verdict(strict, raw)).toBe(expected);
  });

  it('checks the scheme and credentials in checkUrl too, for URLs built without parseFetchUrl', () => {
    expect(strict.checkUrl(new URL('file:///etc/passwd'))?.reason).toBe('scheme');
    expect(strict.checkUrl(new URL('http://u:p@example.com/'))?.reason).toBe('credentials');
  });

  describe('checkAddress', () => {
    it.each([
      ['93.184.216.34', 4, undefined],
      ['2606:4700:4700::1111', 6, undefined],
      ['127.0.0.1', 4, 'forbidden_address'],
      ['::1', 6, 'forbidden_address'],
      ['::ffff:127.0.0.1', 6, 'forbidden_address'],
      ['64:ff9b::a9fe:a9fe', 6, 'forbidden_address'],
      ['2002:7f00:1::1', 6, 'forbidden_address'],
      ['2002:5db8:d822::1', 6, undefined],
      ['2001::5efe:7f00:1', 6, 'forbidden_address'],
      ['127.0.0.1', 6, 'unresolvable'],
      ['::1', 4, 'unresolvable'],
      ['', 4, 'unresolvable'],
      ['example.com', 4, 'unresolvable'],
    ] as const)('judges %s (IPv%s) as %s', (address, family, expected) => {
      expect(strict.checkAddress(address, family)?.reason).toBe(expected);
    });
  });

  describe('the allow list', () => {
    it('by host name: exact and case-insensitive, for the URL and every address it resolves to', () => {
      const guard = createUrlGuard(['Intranet.Example', 'metadata.google.internal']);
      expect(verdict(guard, 'http://intranet.example/')).toBe('allowed');
      expect(verdict(guard, 'http://INTRANET.example./')).toBe('allowed');
      expect(guard.checkAddress('10.1.2.3', 4, 'intranet.example')).toBeUndefined();
      expect(guard.checkAddress('::1', 6, 'INTRANET.EXAMPLE')).toBeUndefined();
      expect(verdict(guard, 'http://metadata.google.internal/')).toBe('allowed');
      // Exact: neither a sub- nor a parent domain, and not any other name's addresses.
      expect(guard.checkAddress('10.1.2.3', 4, 'www.intranet.example')?.reason).toBe('forbidden_address');
      expect(guard.checkAddress('10.1.2.3', 4, 'example')?.reason).toBe('forbidden_address');
      expect(guard.checkAddress('10.1.2.3', 4)?.reason).toBe('forbidden_address');
      expect(verdict(guard, 'http://metadata/')).toBe('forbidden_host');
    });

    it('by address: that address only, in any spelling', () => {
      const guard = createUrlGuard(['127.0.0.1', '[::1]']);
      expect(verdict(guard, 'http://127.0.0.1:3000/')).toBe('allowed');
      expect(verdict(guard, 'http://2130706433/')).toBe('allowed');
      expect(verdict(guard, 'http://127.1/')).toBe('allowed');
      expect(verdict(guard, 'http://[::1]/')).toBe('allowed');
      expect(verdict(guard, 'http://[::ffff:127.0.0.1]/')).toBe('allowed');
      expect(verdict(guard, 'http://127.0.0.2/')).toBe('forbidden_address');
      expect(verdict(guard, 'http://169.254.169.254/')).toBe('forbidden_address');
      expect(guard.checkAddress('127.0.0.1', 4, 'anything.example')).toBeUndefined();
      expect(guard.checkAddress('10.0.0.1', 4)?.reason).toBe('forbidden_address');
    });

    it('by CIDR range, IPv4 and IPv6', () => {
      const guard = createUrlGuard(['10.0.0.0/8', 'fd00::/8', '192.168.1.0/24']);
      expect(verdict(guard, 'http://10.20.30.40/')).toBe('allowed');
      expect(verdict(guard, 'http://[fd00:ec2::254]/')).toBe('allowed');
      expect(verdict(guard, 'http://192.168.1.200/')).toBe('allowed');
      expect(verdict(guard, 'http://192.168.2.1/')).toBe('forbidden_address');
      expect(verdict(guard, 'http://[fc00::1]/')).toBe('forbidden_address');
      expect(verdict(guard, 'http://127.0.0.1/')).toBe('forbidden_address');
      expect(guard.checkAddress('::ffff:10.9.9.9', 6)).toBeUndefined();
      expect(guard.checkAddress('64:ff9b::a0a:a0a', 6)).toBeUndefined();
      expect(guard.checkAddress('2002:a0a:a0a::1', 6)).toBeUndefined();
      expect(guard.checkAddress('2002:c0a8:201::1', 6)?.reason).toBe('forbidden_address');
    });

    it('does not let a host name allow an address, nor an address a name', () => {
      const guard = createUrlGuard(['localhost', '169.254.169.254']);
      expect(verdict(guard, 'http://127.0.0.1/')).toBe('forbidden_address');
      expect(verdict(guard, 'http://metadata/')).toBe('forbidden_host');
      expect(verdict(guard, 'http://169.254.169.254/')).toBe('allowed');
    });

    it.each([
      'localhost:8080',
      'http://intranet.example',
      'user@intranet.example',
      'intranet.example/path',
      'not a host',
      '10.0.0.0/33',
      '10.0.0.0/-1',
      '10.0.0.0/x',
      '10.0.0.0/',
      '::/129',
      'nonsense/8',
      '127.1',
      '0x7f000001',
      '[::1',
      '   ',
    ])('throws a clear error naming the bad entry %j', (entry) => {
      expect(() => createUrlGuard(['127.0.0.1', entry])).toThrow(`tools.web_fetch.allow_private: ${JSON.stringify(entry)} is not a host name`);
    });
  });
});
