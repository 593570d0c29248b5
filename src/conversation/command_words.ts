import type { Inbound, InboundMessage } from './transport.js';

const RESUME = /^(?:resume|continue|\/resume)(?:\s+(\S+))?$/i;

/**
 * The commands people type as text, for the transports that take text (the console, Discord
 * messages): `/stop`, `/status`, `/resume [turn]`, and the words `resume` and `continue`. The
 * conversation itself only ever sees the typed result.
 */
export function inboundFromText(message: InboundMessage): Inbound {
  const text = message.text.trim();
  const lowered = text.toLowerCase();
  if (lowered === '/stop') return { kind: 'stop', origin: message };
  if (lowered === '/status') return { kind: 'status', origin: message };
  const resume = RESUME.exec(text);
  if (resume !== null) return { kind: 'resume', origin: message, turnId: resume[1], spoken: !text.startsWith('/') };
  return { kind: 'message', origin: message };
}
