/**
 * A process-wide brand for one error class. Instances are tagged with `Symbol.for(key)`, so
 * {@link Marked.is} recognises them even when a second copy of the defining module made them,
 * where `instanceof` would not.
 */
export interface Marked<T extends object> {
  /** Tags `instance` as one of the class's errors; called once, in the class's constructor. */
  readonly mark: (instance: T) => void;
  /** Whether `value` carries the brand. */
  readonly is: (value: unknown) => value is T;
}

/** The brand for the error class named `name`, keyed `holdfast.<name>` across the process. */
export function marked<T extends object>(name: string): Marked<T> {
  const brand = Symbol.for(`holdfast.${name}`);
  return {
    mark: (instance) => {
      Object.defineProperty(instance, brand, { value: true, enumerable: false });
    },
    is: (value): value is T => typeof value === 'object' && value !== null && brand in value,
  };
}
