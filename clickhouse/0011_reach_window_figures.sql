-- Reach of a past window as a number next to its kept state (issue 15). A window whose days are
-- all past is answered by its kept state alone, and finalizing 1,000 large uniqCombined(12) states
-- costs about 35-50 us each (50 ms per 1,000-campaign report at 100M events) for a figure that only
-- changes when the state is merged again. So each kept row also holds its finalized figure, written
-- with it, and a report of a past window reads 1,000 numbers (src/reporting/reachWindows.ts). A
-- window that reaches today still merges the kept state with today's blocks.
-- Rows kept before this migration get the figure from their own state when read (the DEFAULT), so
-- they never report 0; a merge writes it and the rows expire within a week anyway.
ALTER TABLE reach_windows_v1 ADD COLUMN IF NOT EXISTS unique_users UInt64 DEFAULT finalizeAggregation(users_state);
