// The id of the private ClickHouse session in which a shard kept its stage-one rows (the HTTP
// adapter makes it: `chs-` and a random UUID). It travels shard -> coordinator -> the same shard,
// and reaches ClickHouse as a URL parameter, so nothing but that shape is accepted.
import { z } from 'zod';

export const sessionIdSchema = z.string().regex(/^chs-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a kept-stage session id');
