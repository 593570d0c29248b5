import { setFlagsFromString } from 'node:v8';

/** V8's own `--semi-space-growth-factor`: the young generation doubles after a collection that finds most of it alive, up to its maximum. */
const V8_SEMI_SPACE_GROWTH_FACTOR = 2;

/**
 * How far past what outlived its last full collection V8 lets the old generation grow before the
 * next one, in percent. By itself V8 allows up to 300 % to a program that allocates as fast as the
 * busy bot does, and hands the memory back only once it sees the process idle.
 */
const HEAP_GROWING_PERCENT = 50;

/**
 * Sets the V8 options the program runs with; called before any other module of the program
 * loads. While the program loads, the young generation keeps its first size: nearly everything
 * its modules make lives on, and V8 would double the young generation at each collection that
 * finds that, to the 16 MiB an idle bot would then hold (a factor below 2 is taken only here: on
 * the command line V8 raises it to 2). {@link endStartingHeap} lets it grow again. The old generation grows by {@link HEAP_GROWING_PERCENT} of what survived.
 */
export function setHeapOptions(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** Once the program has loaded: the young generation grows with the load as V8 grows it by itself. */
export function endStartingHeap(): void {
  setFlagsFromString(`--semi-space-growth-factor=${V8_SEMI_SPACE_GROWTH_FACTOR}`);
}
