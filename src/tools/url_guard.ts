import { BlockList, isIP } from 'node:net';
import { embeddedIPv4 } from './embedded_ipv4.js';

/**
 * Why the guard refused an address: a code to decide on, never the message text.
 * `invalid_url`: not a URL at all; `scheme`: not http or https; `credentials`: user or password in
 * the URL; `forbidden_address`: a private, loopback, link-local, reserved or metadata address;
 * `forbidden_host`: a cloud-metadata host name; `unresolvable`: no usable address to judge.
 */
export type RefusalReason = 'invalid_url' | 'scheme' | 'credentials' | 'forbidden_address' | 'forbidden_host' | 'unresolvable';

/** The guard's "no": the reason code and words for the model. */
export interface UrlRefusal {
  readonly refused: true;
  readonly reason: RefusalReason;
  readonly message: string;
}

/** An IP version, as `dns.lookup` reports it. */
export type AddressFamily = 4 | 6;

/** Decides whether an address may be reached; built once from the allow list by {@link createUrlGuard}. */
export interface UrlGuard {
  /** Checks the scheme, credentials, host name and, for an IP-literal host, the address itself. */
  checkUrl(url: URL): UrlRefusal | undefined;
  /**
   * Checks one resolved or connected address. `host`, the name it was resolved from, lets every
   * address of an allow-listed host through.
   */
  checkAddress(address: string, family: AddressFamily, host?: string): UrlRefusal | undefined;
}

/** Host names of cloud instance-metadata services, refused by name whatever they resolve to. */
const METADATA_HOSTS: ReadonlySet<string> = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

const FORBIDDEN_IPV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const FORBIDDEN_IPV6: readonly (readonly [string, number])[] = [
  ['::', 128],
  ['::1', 128],
  // IPv4-compatible addresses (deprecated, RFC 4291): never a public destination.
  ['::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local (deprecated, RFC 3879): still routed inside some networks.
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  // Teredo (RFC 4380) and local-use NAT64 (RFC 8215): they lead to IPv4 hosts no prefix can vouch for.
  ['2001::', 32],
  ['64:ff9b:1::', 48],
];

const FORBIDDEN = new BlockList();
for (const [network, prefix] of FORBIDDEN_IPV4) FORBIDDEN.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of FORBIDDEN_IPV6) FORBIDDEN.addSubnet(network, prefix, 'ipv6');

/** A refusal with `reason` and words for the model. */
export function refusal(reason: RefusalReason, message: string): UrlRefusal {
  return { refused: true, reason, message };
}

/** `[::1]` → `::1`; anything else unchanged. */
function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Drops an IPv6 zone (`fe80::1%eth0` → `fe80::1`). */
function withoutZone(address: string): string {
  const percent = address.indexOf('%');
  return percent < 0 ? address : address.slice(0, percent);
}

/** Lower case without trailing dots: `Metadata.Google.Internal.` → `metadata.google.internal`. */
function normaliseHost(host: string): string {
  return host.toLowerCase().replace(/\.+$/, '');
}

/** Whether `list` holds `address`, judging an IPv6 address that embeds an IPv4 address by that too. */
function listed(list: BlockList, address: string): boolean {
  switch (isIP(address)) {
    case 4:
      return list.check(address, 'ipv4');
    case 6: {
      if (list.check(address, 'ipv6')) return true;
      const ipv4 = embeddedIPv4(address);
      return ipv4 !== undefined && list.check(ipv4, 'ipv4');
    }
    default:
      return false;
  }
}

/**
 * Whether an IP literal is one web_fetch must never reach by default: private, loopback,
 * link-local (cloud metadata), shared, documentation, benchmark, multicast or reserved space,
 * IPv6 unique-local, link-local, site-local and multicast, Teredo and local-use NAT64, and any
 * IPv4-mapped, NAT64 or 6to4 address whose embedded IPv4 address is one of those. Anything that
 * is not an IP literal counts as forbidden.
 *
 * (Node's BlockList already matches `::ffff:a.b.c.d` against IPv4 rules but not NAT64 or 6to4,
 * so every embedding is unpacked here explicitly rather than relying on that.)
 */
export function isForbiddenAddress(address: string): boolean {
  const bare = withoutZone(unbracket(address));
  return isIP(bare) === 0 || listed(FORBIDDEN, bare);
}

/** Refuses a URL whose scheme is not http(s) or that carries credentials. */
function checkSchemeAndCredentials(url: URL): UrlRefusal | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refusal('scheme', `only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '') return refusal('credentials', 'URLs with a user name or password are not fetched');
  return undefined;
}

/**
 * Parses a URL the model gave with the WHATWG parser, which also turns every IPv4 spelling
 * (decimal, octal, hex, short) and bracketed IPv6 into the canonical host name the guard judges.
 * Refuses anything but http(s) and URLs with credentials.
 */
export function parseFetchUrl(raw: string): URL | UrlRefusal {
  if (!URL.canParse(raw)) return refusal('invalid_url', `${JSON.stringify(raw)} is not a valid URL`);
  const url = new URL(raw);
  return checkSchemeAndCredentials(url) ?? url;
}

interface AllowList {
  readonly hosts: ReadonlySet<string>;
  readonly addresses: BlockList;
}

function badEntry(entry: string): Error {
  return new Error(`tools.web_fetch.allow_private: ${JSON.stringify(entry)} is not a host name, an IP address or a CIDR range (e.g. intranet.example, 10.1.2.3, 10.0.0.0/8, fd00::/8)`);
}

/** Adds one allow-list entry: a CIDR range, an IP address or a host name. */
function addEntry(list: { hosts: Set<string>; addresses: BlockList }, entry: string): void {
  const text = entry.trim();
  const slash = text.indexOf('/');
  if (slash >= 0) {
    const network = unbracket(text.slice(0, slash));
    const prefixText = text.slice(slash + 1);
    const family = isIP(network);
    const prefix = Number(prefixText);
    if (family === 0 || !/^\d{1,3}$/.test(prefixText) || prefix > (family === 4 ? 32 : 128)) throw badEntry(entry);
    list.addresses.addSubnet(network, prefix, family === 4 ? 'ipv4' : 'ipv6');
    return;
  }
  const address = unbracket(text);
  const family = isIP(address);
  if (family !== 0) {
    list.addresses.addAddress(address, family === 4 ? 'ipv4' : 'ipv6');
    return;
  }
  const probe = `http://${text}/`;
  if (!URL.canParse(probe)) throw badEntry(entry);
  const url = new URL(probe);
  // A port, credentials or path make the URL differ from `http://host/`; `127.1` and friends become an IP.
  if (url.href !== `http://${url.hostname}/` || isIP(unbracket(url.hostname)) !== 0) throw badEntry(entry);
  list.hosts.add(normaliseHost(url.hostname));
}

function parseAllowList(entries: readonly string[]): AllowList {
  const list = { hosts: new Set<string>(), addresses: new BlockList() };
  for (const entry of entries) addEntry(list, entry);
  return list;
}

/**
 * Builds the guard once from `tools.web_fetch.allow_private`: host names (exact, case-insensitive)
 * and IP addresses or CIDR ranges that may be reached although they would be refused.
 * @throws Error naming the first entry that is none of those.
 */
export function createUrlGuard(allowPrivate: readonly string[]): UrlGuard {
  const allow = parseAllowList(allowPrivate);
  const hostAllowed = (host: string): boolean => allow.hosts.has(normaliseHost(host));

  const checkAddress = (address: string, family: AddressFamily, host?: string): UrlRefusal | undefined => {
    if (host !== undefined && hostAllowed(host)) return undefined;
    const bare = withoutZone(unbracket(address));
    if (isIP(bare) !== family) return refusal('unresolvable', `${JSON.stringify(address)} is not an IPv${family} address`);
    if (listed(allow.addresses, bare) || !isForbiddenAddress(bare)) return undefined;
    return refusal('forbidden_address', `${bare} is a private, loopback, link-local or reserved address`);
  };

  const checkUrl = (url: URL): UrlRefusal | undefined => {
    const basic = checkSchemeAndCredentials(url);
    if (basic !== undefined) return basic;
    if (hostAllowed(url.hostname)) return undefined;
    const literal = unbracket(url.hostname);
    const family = isIP(literal);
    if (family !== 0) return checkAddress(literal, family === 4 ? 4 : 6);
    if (METADATA_HOSTS.has(normaliseHost(url.hostname))) return refusal('forbidden_host', `${url.hostname} is a cloud metadata service`);
    return undefined;
  };

  return { checkUrl, checkAddress };
}
