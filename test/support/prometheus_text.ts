/** One sample of a Prometheus text exposition: its metric name, labels and value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample in `text`, in order; comments (`# HELP`, `# TYPE`) are skipped. */
export function samplesOf(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = SAMPLE_LINE.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key ?? ''] = value ?? '';
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample `name` whose labels are exactly `labels`; `undefined` when there is none. */
export function sampleValue(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const wanted = Object.entries(labels);
  return samplesOf(text).find((s) => s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([k, v]) => s.labels[k] === v))?.value;
}

/**
 * The value of `name` for each of `values` of its one label `label`, keyed by that value, so that
 * an assertion names every count it expects (`{ completed: 1, failed: 0 }`); a missing sample is
 * `undefined`.
 */
export function sampleValuesBy(text: string, name: string, label: string, values: readonly string[]): Record<string, number | undefined> {
  return Object.fromEntries(values.map((value) => [value, sampleValue(text, name, { [label]: value })]));
}

/** The metric families `text` declares (`# TYPE name kind`), by name. */
export function familiesOf(text: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const [, name, kind] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(name ?? '', kind ?? '');
  return families;
}

/** Where the program's metrics server listens, from the one JSON log line it writes about it; `undefined` before that line. */
export function metricsUrlIn(log: string): string | undefined {
  const line = log.split('\n').find((l) => l.includes('"component":"metrics"'));
  const url: unknown = line === undefined ? undefined : (JSON.parse(line) as { url?: unknown }).url;
  return typeof url === 'string' ? url : undefined;
}
