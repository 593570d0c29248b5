/**
 * Reading provider payloads, which arrive as untyped JSON: parse without throwing, then take
 * each field only when it has the expected type.
 */
export type JsonRecord = Readonly<Record<string, unknown>>;

/** The parsed value, or `undefined` when `text` is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value[key]` when `value` is an object and the field is an object. */
export function recordAt(value: unknown, key: string): JsonRecord | undefined {
  const field = isRecord(value) ? value[key] : undefined;
  return isRecord(field) ? field : undefined;
}

/** `value[key]` when `value` is an object and the field is a string. */
export function stringAt(value: unknown, key: string): string | undefined {
  const field = isRecord(value) ? value[key] : undefined;
  return typeof field === 'string' ? field : undefined;
}

/** `value[key]` when `value` is an object and the field is a finite number. */
export function numberAt(value: unknown, key: string): number | undefined {
  const field = isRecord(value) ? value[key] : undefined;
  return typeof field === 'number' && Number.isFinite(field) ? field : undefined;
}
