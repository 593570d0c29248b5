import { Ajv, type ValidateFunction } from 'ajv';
import type { Clock } from '../core/clock.js';
import { RELEASED } from '../core/linked_abort.js';
import type { JsonObject } from '../llm/protocol.js';
import type { Tool, ToolContext, ToolOutcome } from './tool.js';

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new WeakMap<Tool, ValidateFunction>();

/**
 * Why `input` does not match the tool's schema, in words for the model; `undefined` when it
 * matches. A schema that cannot be compiled is reported the same way, naming the tool.
 */
function inputProblem(tool: Tool, input: JsonObject): string | undefined {
  let validate = validators.get(tool);
  if (validate === undefined) {
    try {
      validate = ajv.compile(tool.inputSchema);
    } catch (error) {
      return `the tool's own input schema is invalid (${error instanceof Error ? error.message : String(error)})`;
    }
    validators.set(tool, validate);
  }
  return validate(input) ? undefined : ajv.errorsText(validate.errors, { dataVar: 'input' });
}

/**
 * Runs one call: the input is checked against the schema before anything runs (a mismatch is a
 * definite failure the model is told about), the tool's timeout aborts it, and a tool that throws
 * is reported by its effect class: a `read` failed, anything else may have had its effect.
 */
export async function runTool(tool: Tool, input: JsonObject, context: ToolContext, clock: Clock): Promise<ToolOutcome> {
  const problem = inputProblem(tool, input);
  if (problem !== undefined) return { kind: 'failed', error: `invalid input for ${tool.name}: ${problem}` };
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(context.signal.reason);
  if (context.signal.aborted) onAbort();
  else context.signal.addEventListener('abort', onAbort, { once: true });
  const timer = new AbortController();
  clock.sleep(tool.timeoutMs, timer.signal).then(
    () => controller.abort(new DOMException(`${tool.name} took longer than ${tool.timeoutMs} ms`, 'TimeoutError')),
    () => undefined,
  );
  try {
    return await tool.execute(input, { ...context, signal: controller.signal });
  } catch (error) {
    const reason = `${tool.name} failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`;
    return tool.effect === 'read' ? { kind: 'failed', error: reason } : { kind: 'uncertain', error: reason };
  } finally {
    timer.abort(RELEASED);
    context.signal.removeEventListener('abort', onAbort);
  }
}
