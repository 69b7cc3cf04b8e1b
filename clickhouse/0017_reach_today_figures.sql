-- A kept window reaching today without its union's state (issue 15, session 34).
-- reach_today_windows_v1 (clickhouse/0014) kept, per key, the union of the kept past state and the
-- blocks of today and after as a uniqCombined(12) state, beside the count it was merged from and its
-- figure. Nothing reads that state: a report trusts a row by its count and answers its figure, and a
-- stale key is merged again from reach_windows_v1 and reach_blocks_v1, never from its old row. Yet it
-- made every row 1.6 KB on disk (3,291 bytes in memory) and every merge of the table's parts
-- deserialize and serialize it: 0.5-0.9 s of CPU to merge fifteen 1,000-row parts (15-40 ms without),
-- work the engine does in the background while the next reports run. The figure is still the
-- union's, computed by the write (src/reporting/reachWindows.ts).
ALTER TABLE reach_today_windows_v1 DROP COLUMN IF EXISTS users_state;
