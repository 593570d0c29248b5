/**
 * Exit statuses of the program: 0 success; 1 a runtime failure, or `holdfast doctor` found
 * something that needs attention; 2 bad arguments or configuration; 3 an operator command named a
 * turn or call that does not exist, asked for a verdict that is not allowed, or asked for a
 * migration the store or its target refuses.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, refused: 3 } as const;

export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];
