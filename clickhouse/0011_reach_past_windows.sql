-- Reach of past days, cheaper to check and to read (issue 15).
--
-- 1. The figure next to the kept state. A window whose days are
-- all past is answered by its kept state alone, and finalizing 1,000 large uniqCombined(12) states
-- costs about 35-50 us each (50 ms per 1,000-campaign report at 100M events) for a figure that only
-- changes when the state is merged again. So each kept row also holds its finalized figure, written
-- with it, and a report of a past window reads 1,000 numbers (src/reporting/reachWindows.ts). A
-- window that reaches today still merges the kept state with today's blocks.
-- Rows kept before this migration get the figure from their own state when read (the DEFAULT), so
-- they never report 0; a merge writes it and the rows expire within a week anyway.
ALTER TABLE reach_windows_v1 ADD COLUMN IF NOT EXISTS unique_users UInt64 DEFAULT finalizeAggregation(users_state);

-- 2. Past months of reach_blocks_v1 merged to one part. The count check of every report reads the blocks' counts of its window, and what that costs
-- follows the parts it opens, not the rows it needs: at 100M events the merges left five parts
-- per month, and the check took 26 ms; with the past months merged to one part each, 13 ms. So a
-- partition none of whose parts was written for an hour is merged to one part. A month is written
-- until its longest block ends (a 64-day block starting in it runs up to two months on), so under
-- live traffic this merges the months before that; a late event for an old month makes it merge
-- again an hour later (seconds of background work per month at 100M events).
ALTER TABLE reach_blocks_v1 MODIFY SETTING min_age_to_force_merge_seconds = 3600, min_age_to_force_merge_on_partition_only = 1;
