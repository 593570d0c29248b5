import { z } from 'zod';
import { LIMIT_SCOPES, type ScopeLimit } from '../turn_state/usage_store.js';

const windowed = (whose: string) =>
  z
    .strictObject({
      turns_per_hour: z.int().positive().optional().describe(`The most turns ${whose} may start in any hour; a message beyond it is answered with a notice instead.`),
      tokens_per_day: z
        .int()
        .positive()
        .optional()
        .describe(`The most tokens (input and output) ${whose} may spend in any 24 hours; once spent, new messages are answered with a notice until enough of them slide out.`),
    })
    .optional();

const perTurnSchema = z
  .strictObject({
    max_tokens: z
      .int()
      .positive()
      .optional()
      .describe('The most tokens (input and output, over every model call) one turn may spend; it stops before its next model call, its work kept, with a notice.'),
    max_cost: z.number().positive().optional().describe('The most one turn may cost, in the currency of `llm.prices`; counted only for priced models.'),
  })
  .optional();

/** The keys of a set of limits, shared by `limits` and each `overrides` entry. */
const limitFields = {
  per_user: windowed('one user').describe('Limits on each user, counted over every channel.'),
  per_channel: windowed('everyone in one channel together').describe('Limits on each channel (a thread counts as its own channel).'),
  per_server: windowed('everyone in one server together').describe('Limits on each server; direct messages belong to none.'),
  per_turn: perTurnSchema.describe('Limits on one turn, checked before each model call.'),
};

/** The `limits` section. */
export const limitsSection = z
  .strictObject({
    ...limitFields,
    admins_exempt: z.boolean().default(true).describe('Whether `permissions.admins` go past the limits (their turns are still counted).'),
  })
  .describe('What the bot may spend: turns and tokens per user, channel and server in sliding windows, and tokens and cost per turn. Each limit is off unless given.');

/** The limits an `overrides` entry may set instead of `limits`'. */
export const overrideLimitsSchema = z.strictObject(limitFields).describe('Limits of turns here instead of `limits`’ (a scope left out keeps that of `limits`).');

/** The validated section, defaults filled in. */
export type LimitsSettings = z.output<typeof limitsSection>;
type OverrideLimits = z.output<typeof overrideLimitsSchema>;

/** What one turn may spend: tokens and cost, either unbounded when absent. */
export interface TurnLimits {
  readonly maxTokens?: number | undefined;
  readonly maxCost?: number | undefined;
}

/** The limits in force where a message was said: those of `limits`, each scope replaced by the override's when it sets one. */
export function limitsHere(limits: LimitsSettings, here: OverrideLimits | undefined): LimitsSettings {
  return here === undefined ? limits : { ...limits, ...Object.fromEntries(Object.entries(here).filter(([, value]) => value !== undefined)) };
}

/** The windowed limits of `limits`, in the order they are checked: user, channel, server; turns before tokens. */
export function windowLimits(limits: LimitsSettings): ScopeLimit[] {
  return LIMIT_SCOPES.flatMap((scope) => {
    const set = limits[`per_${scope}`];
    return [
      ...(set?.turns_per_hour === undefined ? [] : [{ scope, kind: 'turns_per_hour' as const, max: set.turns_per_hour }]),
      ...(set?.tokens_per_day === undefined ? [] : [{ scope, kind: 'tokens_per_day' as const, max: set.tokens_per_day }]),
    ];
  });
}

/** The per-turn limits of `limits`. */
export function turnLimits(limits: LimitsSettings): TurnLimits {
  return { maxTokens: limits.per_turn?.max_tokens, maxCost: limits.per_turn?.max_cost };
}
