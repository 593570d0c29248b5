/**
 * The IPv4 address that some IPv6 addresses carry, so that the web_fetch guard can judge an
 * IPv6 address by the IPv4 host it really reaches.
 */

/** An IPv6 range that carries an IPv4 address: its leading 16-bit groups, and the first of the two groups holding the IPv4 address. */
interface Embedding {
  readonly prefix: readonly number[];
  readonly at: number;
}

const EMBEDDINGS: readonly Embedding[] = [
  // IPv4-mapped, ::ffff:a.b.c.d (RFC 4291): the last 32 bits.
  { prefix: [0, 0, 0, 0, 0, 0xffff], at: 6 },
  // NAT64 well-known prefix, 64:ff9b::/96 (RFC 6052): the last 32 bits.
  { prefix: [0x64, 0xff9b, 0, 0, 0, 0], at: 6 },
  // 6to4, 2002::/16 (RFC 3056): bits 16–47.
  { prefix: [0x2002], at: 1 },
];

/** The eight 16-bit groups of a valid IPv6 address, via the WHATWG parser's canonical form. */
function ipv6Groups(address: string): number[] | undefined {
  const probe = `http://[${address}]/`;
  if (!URL.canParse(probe)) return undefined;
  const canonical = new URL(probe).hostname.slice(1, -1);
  const groups = (part: string | undefined): number[] => (part === undefined || part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const [head, tail] = canonical.split('::');
  const first = groups(head);
  const last = groups(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}

/**
 * The IPv4 address inside an IPv4-mapped, NAT64 (`64:ff9b::/96`) or 6to4 (`2002::/16`) IPv6
 * address, in dotted form; `undefined` for any other address.
 */
export function embeddedIPv4(ipv6: string): string | undefined {
  const groups = ipv6Groups(ipv6);
  if (groups === undefined) return undefined;
  const embedding = EMBEDDINGS.find(({ prefix }) => prefix.every((group, index) => groups[index] === group));
  if (embedding === undefined) return undefined;
  const high = groups[embedding.at] ?? 0;
  const low = groups[embedding.at + 1] ?? 0;
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}
