export interface SseFrame {
  event?: string | undefined;
  data?: string | undefined;
  /** Comment lines (heartbeats). */
  comments: string[];
}

/** Reads server-sent event frames from a response body, for tests. */
export function sseReader(res: Response) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let done = false;

  async function next(timeoutMs = 3000): Promise<SseFrame | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end !== -1) {
        const raw = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        return parse(raw);
      }
      if (done) return undefined;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('timed out waiting for an SSE frame');
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out waiting for an SSE frame')), remaining);
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk.done) done = true;
      else buffer += chunk.value;
    }
  }

  return { next, cancel: () => reader.cancel() };
}

function parse(raw: string): SseFrame {
  const frame: SseFrame = { comments: [] };
  const data: string[] = [];
  for (const line of raw.split('\n')) {
    if (line.startsWith(':')) frame.comments.push(line.slice(1).trim());
    else if (line.startsWith('event: ')) frame.event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (data.length > 0) frame.data = data.join('\n');
  return frame;
}
