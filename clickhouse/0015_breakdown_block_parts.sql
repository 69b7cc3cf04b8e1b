-- Past months of breakdown_blocks_v1 (clickhouse/0009) merged to one part, as 0011 does for
-- reach_blocks_v1. A breakdown's read costs per part it opens, not per row it needs: at 100M events
-- the inserts and the engine's own merges left four to six parts a month (26M rows over the four
-- dimensions), and the line_item breakdown's sums of 1,000 campaigns over 92 days took 43 ms; the
-- same rows at one part a month, 17.5 ms (in process, bench/README.md "Report: session 32"). So a
-- partition none of whose parts was written for an hour is merged to one part. A month is written
-- until its longest block ends (a 64-day block starting in it runs up to two months on), so under
-- live traffic this merges the months before that; a late event for an old month makes it merge
-- again an hour later (the four months of the 100M-event bench data merged in about 20 s).
ALTER TABLE breakdown_blocks_v1 MODIFY SETTING min_age_to_force_merge_seconds = 3600, min_age_to_force_merge_on_partition_only = 1;
