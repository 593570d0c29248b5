/**
 * The model an admin chose for each channel (`/model`, DESIGN §5.4): one row per channel, replaced
 * by the next choice and deleted when the channel goes back to its configured order.
 */
import type { ModelChoice } from '../model_choice_store.js';
import { now, query, queryOne, type Op } from './instructions.js';

interface ChoiceRow {
  readonly model: string;
  readonly chosen_by: string;
  readonly chosen_at: number;
}

const toChoice = (row: ChoiceRow): ModelChoice => ({ model: row.model, chosenBy: row.chosen_by, chosenAt: row.chosen_at });

/** The channel's choice, if one was made. */
export function* chosenModel(channel: string): Op<ModelChoice | undefined> {
  const row = yield* queryOne<ChoiceRow>('SELECT model, chosen_by, chosen_at FROM channel_models WHERE channel = @channel', { channel });
  return row === undefined ? undefined : toChoice(row);
}

/** Makes `model` the channel's choice, dated now, replacing an earlier one. */
export function* chooseModel(channel: string, model: string, chosenBy: string): Op<ModelChoice> {
  const row = yield* queryOne<ChoiceRow>(
    `INSERT INTO channel_models (channel, model, chosen_by, chosen_at) VALUES (@channel, @model, @chosenBy, @now)
     ON CONFLICT (channel) DO UPDATE SET model = excluded.model, chosen_by = excluded.chosen_by, chosen_at = excluded.chosen_at
     RETURNING model, chosen_by, chosen_at`,
    { channel, model, chosenBy, now: yield* now() },
  );
  if (row === undefined) throw new Error(`the choice of ${channel} was not kept`);
  return toChoice(row);
}

/** Forgets the channel's choice; answers whether there was one. */
export function* clearModel(channel: string): Op<boolean> {
  const { changes } = yield* query('DELETE FROM channel_models WHERE channel = @channel', { channel });
  return changes > 0;
}
