-- The price an event's serve was agreed at, in nano-USD per billed event of its price_model (per
-- impression for tCPM, per click for CPC, per conversion for CPA): signed into a tracking link's
-- token and kept with its impression and click, so that a conversion is billed at the CPA price its
-- click's ad won the auction with, not at whatever the line item bids when the conversion comes
-- (src/tracking/lineItemPricing.ts, clickPrice). 0 when not known: rows stored before this migration, a forged
-- token. Appended after the existing columns, so a spool segment written before this migration (its
-- rows shorter) still inserts, with 0.
ALTER TABLE events_v1
  ADD COLUMN IF NOT EXISTS price_nanos Int64 DEFAULT 0;
