import type { MessageJson } from './fixtures.js';
import { interactionEnvelope, type InteractionIds, type InteractionUse } from './interactions.js';
import type { World } from './world.js';

/** A modal as the bot showed it (callback type 9): labels (type 18) or action rows (type 1) holding text inputs (type 4). */
export interface ModalJson {
  readonly custom_id: string;
  readonly title: string;
  readonly components: readonly unknown[];
}

/** The fields of a message or modal component the fake reads. */
interface ComponentJson {
  readonly type?: unknown;
  readonly custom_id?: unknown;
  readonly disabled?: unknown;
  readonly required?: unknown;
  readonly components?: unknown;
  readonly component?: unknown;
  readonly accessory?: unknown;
}

/** Every component in `list` and, depth first, the ones it holds: a row's, a label's, a section's accessory. */
function* componentsIn(list: readonly unknown[]): Generator<ComponentJson> {
  for (const item of list) {
    if (typeof item !== 'object' || item === null) continue;
    const component = item as ComponentJson;
    yield component;
    if (Array.isArray(component.components)) yield* componentsIn(component.components);
    if (component.component !== undefined) yield* componentsIn([component.component]);
    if (component.accessory !== undefined) yield* componentsIn([component.accessory]);
  }
}

/** Whether a member could press the message's button `customId`: it has one (type 2) and it is not disabled. */
export function hasButton(message: MessageJson, customId: string): boolean {
  return [...componentsIn(message.components)].some((component) => component.type === 2 && component.custom_id === customId && component.disabled !== true);
}

/** A button press (INTERACTION_CREATE type 3, component type 2), carrying the message the button is on. */
export function buttonPressPayload(world: World, ids: InteractionIds, use: InteractionUse, customId: string, message: MessageJson): Record<string, unknown> {
  return { ...interactionEnvelope(world, ids, 3, use, { custom_id: customId, component_type: 2 }), message };
}

/** A modal's submission (INTERACTION_CREATE type 5); one opened from a button carries that button's message. */
export function modalSubmitPayload(
  world: World,
  ids: InteractionIds,
  use: InteractionUse,
  modal: ModalJson,
  components: readonly unknown[],
  message: MessageJson | undefined,
): Record<string, unknown> {
  return { ...interactionEnvelope(world, ids, 5, use, { custom_id: modal.custom_id, components }), ...(message === undefined ? {} : { message }) };
}

function isTextInput(component: unknown): component is ComponentJson {
  return typeof component === 'object' && component !== null && (component as ComponentJson).type === 4;
}

/**
 * The `data.components` of a modal's submission, as Discord sends it: each label or action row of
 * the modal with its text input's custom id and the value from `values` (empty for an optional
 * input left out). Throws (a test's mistake) for a value the modal has no input for, or none for a
 * required input, which Discord would not let the user submit.
 */
export function modalSubmission(modal: ModalJson, values: Readonly<Record<string, string>>): unknown[] {
  const filled = new Set<string>();
  const fill = (input: ComponentJson): Record<string, unknown> => {
    const customId = String(input.custom_id);
    const value = values[customId];
    if (value === undefined && input.required !== false) throw new Error(`the modal ${modal.custom_id} cannot be submitted without a value for ${customId}`);
    filled.add(customId);
    return { type: 4, custom_id: customId, value: value ?? '' };
  };
  const submitted = [...modal.components].flatMap((item): Record<string, unknown>[] => {
    const component = item as ComponentJson;
    if (component.type === 18 && isTextInput(component.component)) return [{ type: 18, component: fill(component.component) }];
    if (component.type === 1 && Array.isArray(component.components)) return [{ type: 1, components: component.components.filter(isTextInput).map(fill) }];
    return [];
  });
  const strays = Object.keys(values).filter((customId) => !filled.has(customId));
  if (strays.length > 0) throw new Error(`the modal ${modal.custom_id} has no text input ${strays.join(', ')}`);
  return submitted;
}
