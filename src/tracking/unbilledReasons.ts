/**
 * Every reason a valid event can be stored without being billed (events_v1.unbilled, cost 0), with
 * what triggers it: the one list billingCeiling.ts names its verdicts from, and that docs/tracking.md
 * and openapi.yaml restate (test/unit/unbilledReasons.test.ts holds them to it). These are not
 * invalid traffic: a person saw or clicked the ad, after its line item had reached a ceiling (or,
 * for a conversion, after its campaign was deleted: conversionRecorder.ts), or from outside the
 * countries its line item pays for.
 */
export const unbilledReasons = {
  campaign_deleted: 'a conversion of a CPA serve reported after its campaign was deleted: deleting a campaign ends its conversion billing (the pixels and clicks of ads it served before the delete are still billed while their links are valid), and the conversion is attributed to it (revenue reported) at cost 0',
  outside_target_country:
    "an impression or click of a line item targeting countries from an address whose own country is known and outside them (not in its include list, or in its exclude list), whatever country the serve's user.ip claimed; an address of a privacy relay (ip_class relay) is not judged",
  over_frequency_cap: "an impression of a keyed user who had already reached the line item's frequency cap in its window",
  over_lifetime_budget: "its cost would have taken the line item's billed spend past its lifetime budget",
  over_monthly_budget: "its cost would have taken the line item's billed spend of the UTC calendar month past 30.4 times its daily budget (or past its own cost, when that is more)",
  over_daily_budget: "its cost would have taken the line item's billed spend of the UTC day past twice its daily budget (or past its own cost, when that is more)",
} as const;

export type UnbilledReason = keyof typeof unbilledReasons;
