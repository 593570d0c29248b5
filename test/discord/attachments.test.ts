import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/conversation/transport.js';
import { parseConfigText } from '../../src/app/config_schema.js';
import { ManualClock } from '../support/manual_clock.js';
import { attachmentSettings, prepareAttachments, withAttachments, type AttachmentSettings, type AttachmentView } from '../../src/discord/attachments.js';
import { FileServer } from '../support/file_server.js';

/** A real 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
const SETTINGS: AttachmentSettings = { images: true, maxImageBytes: 64 * 1024, maxTextBytes: 1024, timeoutMs: 5_000 };

describe('Discord attachments, downloaded from a real HTTP server', () => {
  let files: FileServer;
  let clock: ManualClock;
  let shutdown: AbortController;

  beforeEach(async () => {
    files = await FileServer.start();
    clock = new ManualClock();
    shutdown = new AbortController();
  });
  afterEach(async () => {
    await files.close();
  });

  const view = (name: string, url: string, size: number, contentType: string | null): AttachmentView => ({ name, url, size, contentType });
  const prepare = (views: AttachmentView[], settings: AttachmentSettings = SETTINGS) => prepareAttachments(views, settings, { clock, logger: pino({ level: 'silent' }), signal: shutdown.signal });

  it('turns a PNG into an image with exactly its bytes when the model sees images', async () => {
    const url = files.serve('/cat.png', { kind: 'file', body: PNG, contentType: 'image/png' });
    expect(await prepare([view('cat.png', url, PNG.length, 'image/png')])).toEqual([{ kind: 'image', name: 'cat.png', mediaType: 'image/png', data: PNG.toString('base64') }]);
  });

  it('names an image by its bytes, not its label, and refuses a file that only claims to be an image', async () => {
    const jpeg = files.serve('/photo.png', { kind: 'file', body: JPEG, contentType: 'image/png' });
    const fake = files.serve('/fake.png', { kind: 'file', body: 'not an image at all', contentType: 'image/png' });
    expect(await prepare([view('photo.png', jpeg, JPEG.length, 'image/png'), view('fake.png', fake, 19, 'image/png')])).toEqual([
      { kind: 'image', name: 'photo.png', mediaType: 'image/jpeg', data: JPEG.toString('base64') },
      { kind: 'skipped', name: 'fake.png', reason: 'unsupported_type' },
    ]);
  });

  it('does not download images at all when the model does not see them', async () => {
    const url = files.serve('/cat.png', { kind: 'file', body: PNG, contentType: 'image/png' });
    expect(await prepare([view('cat.png', url, PNG.length, 'image/png')], { ...SETTINGS, images: false })).toEqual([{ kind: 'skipped', name: 'cat.png', reason: 'vision_off' }]);
    expect(files.requests).toEqual([]);
  });

  it('never requests a file whose declared size is over the limit', async () => {
    const url = files.serve('/huge.png', { kind: 'stream', total: 10 * 1024 * 1024, contentType: 'image/png' });
    expect(await prepare([view('huge.png', url, 10 * 1024 * 1024, 'image/png')])).toEqual([{ kind: 'skipped', name: 'huge.png', reason: 'too_large', limitBytes: 64 * 1024 }]);
    expect(files.requests).toEqual([]);
  });

  it('cuts off a file declared small whose body keeps growing, without reading it all', async () => {
    const total = 50 * 1024 * 1024;
    const url = files.serve('/liar.png', { kind: 'stream', total, contentType: 'image/png' });
    expect(await prepare([view('liar.png', url, 1_000, 'image/png')])).toEqual([{ kind: 'skipped', name: 'liar.png', reason: 'too_large', limitBytes: 64 * 1024 }]);
    await files.whenClosedByClient('/liar.png');
    const [request] = files.requestsFor('/liar.png');
    expect(request?.closedByClient).toBe(true);
    expect(request?.bytesSent).toBeLessThan(total);
  });

  it('stops at a Content-Length over the limit before reading the body', async () => {
    const total = 50 * 1024 * 1024;
    const url = files.serve('/big.txt', { kind: 'stream', total, contentType: 'text/plain', declare: true });
    expect(await prepare([view('big.txt', url, 10, 'text/plain')])).toEqual([{ kind: 'skipped', name: 'big.txt', reason: 'too_large', limitBytes: 1024 }]);
    await files.whenClosedByClient('/big.txt');
    expect(files.requestsFor('/big.txt')[0]?.bytesSent).toBeLessThan(total);
  });

  it('reads text files as text, by content type or by extension, and refuses text that is not UTF-8', async () => {
    const notes = files.serve('/notes.md', { kind: 'file', body: '# Notes\n- milk ✓\n', contentType: 'text/markdown; charset=utf-8' });
    const code = files.serve('/main.ts', { kind: 'file', body: 'export const x = 1;\n', contentType: 'video/mp2t' });
    const latin = files.serve('/old.txt', { kind: 'file', body: Buffer.from([0x63, 0x61, 0x66, 0xe9]), contentType: 'text/plain' });
    expect(await prepare([view('notes.md', notes, 18, 'text/markdown; charset=utf-8'), view('main.ts', code, 20, 'video/mp2t'), view('old.txt', latin, 4, 'text/plain')])).toEqual([
      { kind: 'text', name: 'notes.md', text: '# Notes\n- milk ✓\n' },
      { kind: 'text', name: 'main.ts', text: 'export const x = 1;\n' },
      { kind: 'skipped', name: 'old.txt', reason: 'unsupported_type' },
    ]);
  });

  it('skips other file types without downloading them', async () => {
    const url = files.serve('/archive.zip', { kind: 'file', body: 'PK', contentType: 'application/zip' });
    expect(await prepare([view('archive.zip', url, 2, 'application/zip'), view('song.mp3', url, 2, null)])).toEqual([
      { kind: 'skipped', name: 'archive.zip', reason: 'unsupported_type' },
      { kind: 'skipped', name: 'song.mp3', reason: 'unsupported_type' },
    ]);
    expect(files.requests).toEqual([]);
  });

  it('reports a file the server will not give as download_failed, keeping the others', async () => {
    const missing = files.serve('/gone.txt', { kind: 'file', status: 404, body: 'no such file', contentType: 'text/plain' });
    const present = files.serve('/here.txt', { kind: 'file', body: 'still here', contentType: 'text/plain' });
    expect(await prepare([view('gone.txt', missing, 12, 'text/plain'), view('here.txt', present, 10, 'text/plain')])).toEqual([
      { kind: 'skipped', name: 'gone.txt', reason: 'download_failed' },
      { kind: 'text', name: 'here.txt', text: 'still here' },
    ]);
  });

  it('gives up on a server that never answers once the timeout passes on the clock', async () => {
    const url = files.serve('/slow.txt', { kind: 'hold' });
    const prepared = prepare([view('slow.txt', url, 10, 'text/plain')]);
    await files.whenRequested('/slow.txt');
    await clock.advance(SETTINGS.timeoutMs);
    expect(await prepared).toEqual([{ kind: 'skipped', name: 'slow.txt', reason: 'download_failed' }]);
    await files.whenClosedByClient('/slow.txt');
  });

  it('abandons downloads when the bot shuts down', async () => {
    const url = files.serve('/slow.png', { kind: 'hold' });
    const prepared = prepare([view('slow.png', url, 10, 'image/png')]);
    await files.whenRequested('/slow.png');
    shutdown.abort();
    expect(await prepared).toEqual([{ kind: 'skipped', name: 'slow.png', reason: 'download_failed' }]);
  });

  it('passes a message without attachments on at once, and adds the prepared ones to a message that has them', async () => {
    const message: InboundMessage = { source: 'discord', channelId: 'c1', authorId: 'ada', authorRoleIds: [], messageId: 'm1', text: 'look' };
    const deps = { clock, logger: pino({ level: 'silent' }), signal: shutdown.signal };
    expect(withAttachments(message, [], SETTINGS, deps)).toBe(message);
    const url = files.serve('/cat.png', { kind: 'file', body: PNG, contentType: 'image/png' });
    expect(await withAttachments(message, [view('cat.png', url, PNG.length, 'image/png')], SETTINGS, deps)).toEqual({
      ...message,
      attachments: [{ kind: 'image', name: 'cat.png', mediaType: 'image/png', data: PNG.toString('base64') }],
    });
  });

  it('takes its limits from the configuration', () => {
    const config = parseConfigText('discord:\n  max_attachment_mb: 2\n  max_text_attachment_kb: 50\nllm:\n  vision: true\n', 'c.yml', {});
    expect(attachmentSettings(config.discord, config.llm.vision)).toMatchObject({ images: true, maxImageBytes: 2 * 1024 * 1024, maxTextBytes: 50 * 1024 });
    const defaults = parseConfigText('', 'c.yml', {});
    expect(attachmentSettings(defaults.discord, defaults.llm.vision)).toMatchObject({ images: false, maxImageBytes: 8 * 1024 * 1024, maxTextBytes: 100 * 1024 });
  });
});
