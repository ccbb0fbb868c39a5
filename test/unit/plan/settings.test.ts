// Settings: merge order, initiator-only stripping, allowlist, refusals, planner-read knobs.
import { describe, expect, it } from 'vitest';
import { executionLimitMs, resolveSettings, timeoutThrows } from '../../../shared/core/plan/settings.js';
import { querySchema } from '../../../shared/core/config/schema.js';
import type { SettingItem } from '../../../shared/core/sql/ast.js';
import { ScatterError } from '../../../shared/core/errors.js';

const defaults = querySchema.parse({});
const lit = (v: string, type: 'integer' | 'string' | 'float' | 'bool' = 'integer') => ({
  kind: 'literal' as const,
  type,
  value: v,
  pos: { line: 1, column: 40, offset: 39 },
});
const item = (name: string, v: string, type?: 'integer' | 'string' | 'float' | 'bool'): SettingItem => ({ name, value: lit(v, type) });

function refused(f: () => unknown): ScatterError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ScatterError);
    return e as ScatterError;
  }
  throw new Error('expected a refusal');
}

describe('resolveSettings', () => {
  it('forwards allow-listed settings; the SQL clause wins over the request', () => {
    const s = resolveSettings({ max_threads: 2, max_block_size: 1000 }, [item('max_threads', '4')], defaults, {});
    expect(s.forward).toEqual({ max_threads: 4, max_block_size: 1000 });
  });

  it('refuses initiator-only settings by name (the answer format is fixed), from the request and from SETTINGS', () => {
    for (const [name, v] of [
      ['output_format_json_quote_64bit_integers', 0],
      ['format_csv_delimiter', ';'],
      ['default_format', 'CSV'],
      ['enable_http_compression', 1],
      ['limit', 5],
      ['offset', 2],
    ] as const) {
      const e = refused(() => resolveSettings({ [name]: v, join_use_nulls: 1 }, undefined, defaults, {}));
      expect(e.code).toBe('UNSUPPORTED');
      expect(e.message).toContain(name);
      expect(e.message).toMatch(/format is fixed/);
    }
    const e = refused(() => resolveSettings({}, [item('output_format_json_quote_64bit_integers', '0')], defaults, {}));
    expect(e.position).toEqual({ line: 1, column: 40 });
  });

  it('reads the filters and set-operation modes the session applies before planning, and checks them', () => {
    const s = resolveSettings(
      { additional_result_filter: 'x != 2', union_default_mode: 'ALL', additional_table_filters: "{'t': 'x > 1'}" },
      undefined,
      defaults,
      {},
    );
    expect(s.forward).toEqual({});
    for (const bad of [
      { additional_result_filter: 'x !=' },
      { additional_table_filters: "{'t': 1}" },
      { union_default_mode: 'all' },
      { except_default_mode: 'x' },
    ] as Record<string, string>[])
      expect(() => resolveSettings(bad, undefined, defaults, {}), JSON.stringify(bad)).toThrow();
  });

  it('reads extremes for the final stage (never forwarded to a shard), as a boolean', () => {
    expect(resolveSettings({ extremes: 1 }, undefined, defaults, {})).toMatchObject({ extremes: true, forward: {} });
    expect(resolveSettings({ extremes: 1 }, [item('extremes', '0')], defaults, {}).extremes).toBe(false);
    expect(resolveSettings({}, undefined, defaults, {}).extremes).toBe(false);
    expect(refused(() => resolveSettings({ extremes: 'yes' }, undefined, defaults, {})).code).toBe('BAD_REQUEST');
    expect(refused(() => resolveSettings({ extremes: 'on' }, undefined, defaults, {})).code).toBe('BAD_REQUEST');
  });

  it('checks forwarded values for type and range, naming the setting, and normalizes them', () => {
    for (const [name, v] of [
      ['max_threads', -1],
      ['max_threads', 1e30],
      ['max_threads', 1.5],
      ['max_threads', '1; DROP TABLE x'],
      ['max_threads', 5000],
      ['max_memory_usage', 'lots'],
      ['max_memory_usage', '99999999999999999999999'],
      ['max_block_size', 0],
      ['join_use_nulls', 2],
      ['join_use_nulls', 'yes'],
      ['read_overflow_mode', 'explode'],
      ['group_by_overflow_mode', 1],
      ['max_streams_to_max_threads_ratio', -1],
    ] as const) {
      const e = refused(() => resolveSettings({ [name]: v }, undefined, defaults, {}));
      expect(e.code, `${name}=${String(v)}`).toBe('BAD_REQUEST');
      expect(e.message).toContain(name);
    }
    const e = refused(() => resolveSettings({}, [item('max_threads', '-1')], defaults, {}));
    expect(e.position).toEqual({ line: 1, column: 40 });
    const s = resolveSettings(
      {
        max_threads: '8',
        max_bytes_before_external_sort: '18446744073709551615',
        join_use_nulls: true,
        group_by_overflow_mode: 'THROW',
        join_default_strictness: 'any',
        use_uncompressed_cache: 'false',
        max_streams_to_max_threads_ratio: 1.5,
      },
      undefined,
      defaults,
      {},
    );
    expect(s.forward).toEqual({
      max_threads: 8,
      max_bytes_before_external_sort: '18446744073709551615',
      join_use_nulls: 1,
      group_by_overflow_mode: 'throw',
      join_default_strictness: 'ANY',
      use_uncompressed_cache: 0,
      max_streams_to_max_threads_ratio: 1.5,
    });
  });

  it('resource limits are only lowered: 0 (unlimited) and values over the ceiling are 452, wherever they are set', () => {
    const constraint = (f: () => unknown) => {
      const e = refused(f);
      expect(e.code).toBe('BAD_REQUEST');
      expect((e.details as { clickhouse?: { code?: number } }).clickhouse?.code).toBe(452);
      return e;
    };
    expect(constraint(() => resolveSettings({ max_memory_usage: '1000000000000000' }, undefined, defaults, {})).message).toBe(
      "Setting max_memory_usage shouldn't be greater than 10000000000",
    );
    expect(constraint(() => resolveSettings({ max_rows_to_read: 0 }, undefined, defaults, {})).message).toMatch(/^Setting max_rows_to_read shouldn't be 0/);
    const e = constraint(() => resolveSettings({}, [item('max_memory_usage', '0')], defaults, {}));
    expect(e.position).toBeDefined();
    const ceilings = { ...defaults, limitCeilings: { max_memory_usage: 2_000_000_000, max_rows_to_read: 1000 } };
    constraint(() => resolveSettings({ max_memory_usage: 2_000_000_001 }, undefined, ceilings, {}));
    constraint(() => resolveSettings({ max_rows_to_read: 1001 }, undefined, ceilings, {}));
    expect(resolveSettings({ max_memory_usage: 2_000_000_000, max_rows_to_read: 1000, max_threads: 0 }, undefined, ceilings, {}).forward).toEqual({
      max_memory_usage: 2_000_000_000,
      max_rows_to_read: 1000,
      max_threads: 0,
    });
  });

  it("forwards every overflow mode, the truncating ones ('break', group_by's 'any') too, normalized; other values are refused", () => {
    for (const [name, v] of [
      ['read_overflow_mode', 'break'],
      ['group_by_overflow_mode', 'break'],
      ['group_by_overflow_mode', 'any'],
      ['sort_overflow_mode', 'break'],
      ['set_overflow_mode', 'BREAK'],
      ['join_overflow_mode', 'break'],
      ['distinct_overflow_mode', 'break'],
    ] as const) {
      expect(resolveSettings({ [name]: v }, undefined, defaults, {}).forward[name], `${name}=${v}`).toBe(v.toLowerCase());
      expect(resolveSettings({ [name]: 'throw' }, undefined, defaults, {}).forward[name]).toBe('throw');
    }
    const e = refused(() => resolveSettings({}, [item('read_overflow_mode', 'any', 'string')], defaults, {}));
    expect([e.code, e.position]).toEqual(['BAD_REQUEST', { line: 1, column: 40 }]);
    expect(e.message).toContain("setting read_overflow_mode must be one of 'throw', 'break'");
    // result_overflow_mode never reaches a shard.
    expect(refused(() => resolveSettings({ result_overflow_mode: 'break' }, undefined, defaults, {})).code).toBe('UNSUPPORTED');
  });

  it('reads max_execution_time and timeout_overflow_mode for the deadline, never forwarding them', () => {
    for (const v of [1, '1.5', 0, '0'])
      expect(resolveSettings({ max_execution_time: v, timeout_overflow_mode: 'break' }, undefined, defaults, {}).forward).toEqual({});
    expect(resolveSettings({}, [item('timeout_overflow_mode', 'throw', 'string')], defaults, {}).forward).toEqual({});
    for (const v of [-1, 'soon', true]) expect(refused(() => resolveSettings({ max_execution_time: v }, undefined, defaults, {})).code).toBe('BAD_REQUEST');
    const e = refused(() => resolveSettings({}, [item('timeout_overflow_mode', 'any', 'string')], defaults, {}));
    expect([e.code, e.position]).toEqual(['BAD_REQUEST', { line: 1, column: 40 }]);
    expect([executionLimitMs({ max_execution_time: 1.5 }), executionLimitMs({ max_execution_time: '2' }), executionLimitMs({ max_execution_time: 0 })]).toEqual(
      [1500, 2000, undefined],
    );
    expect([timeoutThrows({ timeout_overflow_mode: 'THROW' }), timeoutThrows({ timeout_overflow_mode: 'break' }), timeoutThrows({})]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('refuses runtime-owned settings by name, with the position of the SETTINGS value', () => {
    for (const name of ['readonly', 'allow_ddl', 'max_concurrent_queries_for_user']) {
      const e = refused(() => resolveSettings({}, [item(name, '0')], defaults, {}));
      expect(e.code).toBe('UNSUPPORTED');
      expect(e.message).toContain(name);
      expect(e.position).toEqual({ line: 1, column: 40 });
    }
  });

  it('refuses settings that are not on the allowlist', () => {
    const e = refused(() => resolveSettings({ cast_string_to_dynamic_use_inference: 1 }, undefined, defaults, {}));
    expect(e.code).toBe('UNSUPPORTED');
    expect(e.message).toContain('cast_string_to_dynamic_use_inference');
    expect(e.details).toMatchObject({ clickhouse: { code: 452 } });
    // A name ClickHouse does not know is its 115. Client and logging settings are refused here too (the
    // ClickHouse interface accepts them as URL parameters before the planner: request.ts).
    expect(refused(() => resolveSettings({ no_such_setting: 1 }, undefined, defaults, {})).details).toMatchObject({ clickhouse: { code: 115 } });
    expect(refused(() => resolveSettings({ log_comment: 'x' }, undefined, defaults, {})).code).toBe('UNSUPPORTED');
  });

  it('reads the planner knobs and does not forward them', () => {
    const s = resolveSettings(
      { optimize_skip_unused_shards: 0, force_optimize_skip_unused_shards: 1, distributed_product_mode: 'global', optimize_skip_unused_shards_rewrite_in: 0 },
      undefined,
      defaults,
      {},
    );
    expect(s).toMatchObject({ skipUnusedShards: false, forceSkip: true, distributedProductMode: 'global', rewriteIn: false, forward: {} });
    expect(resolveSettings({ prefer_global_in_and_join: 1 }, undefined, defaults, {}).distributedProductMode).toBe('global');
    expect(resolveSettings({}, undefined, defaults, { distributedProductMode: 'local' }).distributedProductMode).toBe('local');
    expect(refused(() => resolveSettings({ distributed_product_mode: 'allow' }, undefined, defaults, {})).code).toBe('UNSUPPORTED');
  });

  it('transfer limits from settings can only tighten the configured ones', () => {
    const cfg = { ...defaults, maxRowsToTransfer: 100, maxBytesToTransfer: 0 };
    expect(resolveSettings({ max_rows_to_transfer: 10 }, undefined, cfg, {}).maxRowsToTransfer).toBe(10);
    expect(resolveSettings({ max_rows_to_transfer: 1000 }, undefined, cfg, {}).maxRowsToTransfer).toBe(100);
    expect(resolveSettings({ max_rows_to_transfer: 0 }, undefined, cfg, {}).maxRowsToTransfer).toBe(100);
    expect(resolveSettings({ max_bytes_to_transfer: 50, transfer_overflow_mode: 'break' }, undefined, cfg, {})).toMatchObject({
      maxBytesToTransfer: 50,
      transferOverflowMode: 'break',
    });
    expect(refused(() => resolveSettings({ transfer_overflow_mode: 'any' }, undefined, cfg, {})).code).toBe('BAD_REQUEST');
  });
});

describe('ch_scatter_keep_initiator_rows', () => {
  it('takes 1 or 0 (the runtime reads it), never forwards it to the shards, and refuses anything else', () => {
    for (const v of ['0', '1']) expect(resolveSettings({}, [item('ch_scatter_keep_initiator_rows', v)], defaults, {}).forward).toEqual({});
    expect(resolveSettings({ ch_scatter_keep_initiator_rows: 'false' }, [], defaults, {}).forward).toEqual({});
    const e = refused(() => resolveSettings({}, [item('ch_scatter_keep_initiator_rows', 'yes', 'string')], defaults, {}));
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.message).toMatch(/ch_scatter_keep_initiator_rows must be 0, 1, true or false: Cannot parse bool from string 'yes'/);
  });
});
