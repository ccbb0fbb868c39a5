// The shard's streaming handler (what the CDK deploys with the streaming door) answers a request
// that streams nothing with its JSON, as the buffered handler does, and flushes its metrics after
// every invocation (no middy around a stream does it).
import { describe, expect, it } from 'vitest';
import { createStreamingShardHandler } from '../../../functions/shard/shard-function.js';
import { collectStreamed, runStreamingHandler } from '../../../local/response-stream.mjs';

describe('createStreamingShardHandler', () => {
  it('answers a malformed request with its JSON failure and flushes the metrics once per invocation', async () => {
    let flushes = 0;
    const handler = createStreamingShardHandler(
      {
        getAccess: () => Promise.reject(new Error('no engine is reached for a malformed request')),
      },
      () => flushes++,
    );
    for (let i = 1; i <= 2; i++) {
      const s = await runStreamingHandler(handler as never, { type: 'nope' });
      expect(s.contentType).toBe('application/json');
      const body = JSON.parse((await collectStreamed(s)).toString('utf8'));
      expect(body).toMatchObject({ ok: false, error: { code: expect.any(String) } });
      expect(flushes).toBe(i);
    }
  });
});
