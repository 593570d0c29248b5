import { describe, expect, it } from 'vitest';
import { useKeptHarness, type MakeKeptHarness } from './kept_contract_harness.js';

/** The behaviour every `ModelChoiceStore` must show, written against the port alone. */
export function describeModelChoiceContract(name: string, make: MakeKeptHarness): void {
  describe(`ModelChoiceStore contract: ${name}`, () => {
    const harness = useKeptHarness(make);

    it('keeps one choice per channel, dated by the clock, a later choice replacing the earlier', async () => {
      const { models, clock } = harness();
      expect(await models.chosen('discord:1')).toBeUndefined();

      const first = await models.choose('discord:1', 'fast-model', 'discord:ada');
      expect(first).toEqual({ model: 'fast-model', chosenBy: 'discord:ada', chosenAt: clock.now() });
      await clock.advance(60_000);
      await models.choose('discord:2', 'big-model', 'discord:bo');
      const second = await models.choose('discord:1', 'big-model', 'discord:bo');

      expect(second).toEqual({ model: 'big-model', chosenBy: 'discord:bo', chosenAt: clock.now() });
      expect(await models.chosen('discord:1')).toEqual(second);
      expect(await models.chosen('discord:2')).toMatchObject({ model: 'big-model' });
      expect(await models.chosen('console:1')).toBeUndefined();
    });

    it('forgets a channel’s choice on clear, saying whether there was one, and leaves the others', async () => {
      const { models } = harness();
      await models.choose('discord:1', 'fast-model', 'discord:ada');
      await models.choose('discord:2', 'fast-model', 'discord:ada');

      expect(await models.clear('discord:1')).toBe(true);
      expect(await models.clear('discord:1')).toBe(false);
      expect(await models.chosen('discord:1')).toBeUndefined();
      expect(await models.chosen('discord:2')).toMatchObject({ model: 'fast-model' });
    });

    it('keeps the choice across a reopen when it is durable', async () => {
      const h = harness();
      const chosen = await h.models.choose('discord:1', 'fast-model', 'discord:ada');

      await h.reopen();

      expect(await h.models.chosen('discord:1')).toEqual(h.durable ? chosen : undefined);
    });
  });
}
