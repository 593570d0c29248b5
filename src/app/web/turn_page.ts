/**
 * One turn as the console shows it (DESIGN §10.2): its row, its transcript as a conversation with
 * tool calls and results folded, its ledger as timelines, its checkpoints, its reply and that
 * reply's delivery, and the model calls it made with their tokens and cost.
 */
import { assertNever } from '../../core/assert_never.js';
import type { ContentBlock, Message } from '../../llm/protocol.js';
import type { ReplyDelivery, TurnDetail, TurnWork } from '../../turn_state/operator_store.js';
import { callCard } from './call_cards.js';
import { escapeHtml, page, STATUS_WORDS, table, utcTime, type PageFrame } from './web_pages.js';

/** The page of one turn. */
export function turnPage(detail: TurnDetail, work: TurnWork, frame: PageFrame): string {
  const { turn, ops } = detail;
  const back = `/turns/${encodeURIComponent(turn.turnId)}`;
  const fields: [string, string][] = [
    ['Status', `${STATUS_WORDS[turn.status]} (${turn.status})`],
    ['Channel', `${turn.identity.source}:${turn.identity.channelId}`],
    ['Message', turn.identity.messageId],
    ['Requester', turn.requesterId],
    ['Started', `${utcTime(turn.createdAt)} UTC`],
    ['Last written', `${utcTime(turn.updatedAt)} UTC, revision ${turn.revision}, run ${turn.generation}`],
    ...(turn.suspensionReason === null ? [] : [['Saved because', turn.suspensionReason] as [string, string]]),
    ...(turn.failureReason === null ? [] : [['Ended because', turn.failureReason] as [string, string]]),
  ];
  const summary = `<dl>${fields.map(([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>`;
  const calls = ops.length === 0 ? '<p>No tool calls.</p>' : ops.map((op) => callCard(op, detail, frame.session, back)).join('');
  const body = [
    summary,
    section('Conversation', conversation(work.transcript, turn.payloadCompacted)),
    section('Tool calls', calls),
    section('Reply', reply(detail.reply)),
    section('Model calls', modelCalls(work)),
    section('Checkpoints', checkpoints(work)),
  ].join('');
  return page(`Turn ${turn.turnId}`, body, frame);
}

function section(title: string, body: string): string {
  return `<section><h2>${escapeHtml(title)}</h2>${body}</section>`;
}

function conversation(transcript: readonly Message[], compacted: boolean): string {
  if (transcript.length === 0)
    return compacted ? '<p class="muted">The transcript was dropped when the turn ended (or passed payload retention); its ledger and reply remain.</p>' : '<p>Nothing said yet.</p>';
  return transcript.map((message) => `<div class="message ${message.role}"><div class="role">${escapeHtml(message.role)}</div>${message.content.map(block).join('')}</div>`).join('');
}

function block(content: ContentBlock): string {
  switch (content.type) {
    case 'text':
      return `<pre>${escapeHtml(content.text)}</pre>`;
    case 'image':
      return `<p class="muted">[an image, ${escapeHtml(content.mediaType)}]</p>`;
    case 'tool_use': {
      const input = content.malformedInput?.raw ?? JSON.stringify(content.input, null, 2);
      return `<details><summary>Calls ${escapeHtml(content.name)} (${escapeHtml(content.id)})</summary><pre>${escapeHtml(input)}</pre></details>`;
    }
    case 'tool_result':
      return `<details><summary>${content.isError ? 'Error' : 'Result'} of ${escapeHtml(content.toolUseId)}</summary><pre>${escapeHtml(content.content)}</pre></details>`;
    case 'reasoning':
      return content.summary.length === 0 ? '' : `<details><summary>Reasoning</summary><pre>${escapeHtml(content.summary.join('\n\n'))}</pre></details>`;
    default:
      return assertNever(content);
  }
}

function reply(delivery: ReplyDelivery | null): string {
  if (delivery === null) return '<p>No reply stored.</p>';
  const parts = [
    `${delivery.state}: ${delivery.partsDelivered} part(s) delivered`,
    `stored ${utcTime(delivery.createdAt)} UTC`,
    ...(delivery.deliveredAt === null ? [] : [`delivered ${utcTime(delivery.deliveredAt)} UTC`]),
    ...(delivery.failure === null ? [] : [`refused for good: ${delivery.failure}`]),
  ];
  return `<p>${escapeHtml(parts.join(', '))}</p>`;
}

function modelCalls(work: TurnWork): string {
  if (work.modelCalls.length === 0) return '<p>No model call recorded.</p>';
  const count = (value: number | null): string => (value === null ? 'not reported' : String(value));
  const rows = work.modelCalls.map((call) => [utcTime(call.calledAt), call.model, count(call.inputTokens), count(call.outputTokens), cost(call.cost)].map(escapeHtml));
  const tokens = work.modelCalls.reduce((sum, call) => sum + (call.inputTokens ?? 0) + (call.outputTokens ?? 0), 0);
  const priced = work.modelCalls.filter((call) => call.cost !== null);
  const total = priced.length === 0 ? 'not priced' : cost(priced.reduce((sum, call) => sum + (call.cost ?? 0), 0));
  return `${table('One row per model call, in order', ['At (UTC)', 'Model', 'Input tokens', 'Output tokens', 'Cost'], rows)}<p>In all: ${tokens} tokens, ${escapeHtml(total)}.</p>`;
}

function cost(value: number | null): string {
  return value === null ? 'not priced' : `$${value.toFixed(4)}`;
}

function checkpoints(work: TurnWork): string {
  if (work.checkpoints.length === 0) return '<p class="muted">None kept.</p>';
  return table(
    'The newest are kept',
    ['Checkpoint', 'Written (UTC)', 'Transcript rows covered'],
    work.checkpoints.map((mark) => [String(mark.seq), utcTime(mark.createdAt), String(mark.transcriptLength)].map(escapeHtml)),
  );
}
