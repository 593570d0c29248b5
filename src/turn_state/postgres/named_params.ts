/** A statement in PostgreSQL's positional form. */
export interface PositionalStatement {
  readonly text: string;
  readonly values: unknown[];
}

const NAME = /@([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * `text` with each `@name` replaced by a `$n` placeholder and `values` in that order, so that a
 * statement reads like its SQLite twin; a name used twice is one parameter.
 * @throws {Error} when the statement names a parameter `params` does not give.
 */
export function named(text: string, params: Readonly<Record<string, unknown>>): PositionalStatement {
  const order: string[] = [];
  const positional = text.replace(NAME, (_, name: string) => {
    if (!(name in params)) throw new Error(`the statement names @${name}, which no parameter gives`);
    let index = order.indexOf(name);
    if (index < 0) index = order.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text: positional, values: order.map((name) => params[name]) };
}
