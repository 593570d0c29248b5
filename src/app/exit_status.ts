/**
 * Exit statuses of the program: 0 success; 1 a runtime failure (Discord or the store out of reach
 * for `startup_timeout_seconds` among them: starting again later may work), or `holdfast doctor`
 * found something that needs attention; 2 what a person must fix in the arguments or the
 * configuration (a token Discord refuses among them: starting again does not help); 3 an operator
 * command named a turn or call that does not exist, asked for a verdict that is not allowed, or
 * asked for a migration the store or its target refuses.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, refused: 3 } as const;

export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];
