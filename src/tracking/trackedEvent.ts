/** One row of ClickHouse `events_v1`, as the event pipeline writes it. */
export interface TrackedEvent {
  event_id: string;
  /** Milliseconds since the epoch, UTC. */
  event_time: number;
  type: 'impression' | 'click' | 'conversion';
  /** Where it came from: pixel, click, conversion_api, conversion_pixel, import. */
  source: string;
  serve_id: string;
  campaign_id: string;
  line_item_id: string;
  creative_id: string;
  placement_id: string;
  publisher_id: string;
  /** tCPM, CPC or CPA: the line item's bid type at serve time. */
  price_model: string;
  /** What the advertiser is billed for this event, in nano-USD; 0 for invalid traffic. */
  cost_nanos: number;
  revenue_nanos: number;
  /** On a click, its own id (quoted by conversions); on a conversion, the click it is attributed to. */
  click_id: string;
  ip: string;
  ip_class: string;
  ip_network: string;
  user_agent: string;
  /** '' when valid; otherwise the reason it is invalid traffic (datacenter, bot, bad_token, duplicate, ...). */
  ivt: string;
  /** ISO 3166-1 alpha-2 country of the client address; '' when it cannot be told. */
  country: string;
  /** The keyed (never raw) user id of the serve, for frequency caps and reach; '' when none. */
  user_key: string;
  /** The request's Fetch Metadata headers as sent (Sec-Fetch-Dest, -Mode, -Site); '' when absent. */
  fetch_dest: string;
  fetch_mode: string;
  fetch_site: string;
  /**
   * The price the event's serve was agreed at, nano-USD per billed event of price_model: signed into
   * a tracking link (impressions, clicks), the line item's bid when imported, its click's for a
   * conversion. 0 when not known (a forged token). A conversion is billed at its click's.
   */
  price_nanos: number;
  /**
   * '' when billed as cost_nanos says; otherwise why a valid event was stored at cost 0
   * (src/tracking/unbilledReasons.ts: a budget's or the frequency cap's billing ceiling).
   */
  unbilled: string;
}

/**
 * What the counters of accepted events not yet in ClickHouse read of one (pacing's spend, frequency
 * counts): all of it a spooled line gives back (EventPipeline.forEachRecovered).
 */
export type CountedEvent = Pick<TrackedEvent, 'event_id' | 'event_time' | 'type' | 'serve_id' | 'line_item_id' | 'cost_nanos' | 'ivt' | 'user_key'>;

/** The columns every event source leaves empty until it knows them. */
export const NO_EVENT_CONTEXT = { country: '', user_key: '', fetch_dest: '', fetch_mode: '', fetch_site: '', unbilled: '' } as const;

export const NIL_UUID = '00000000-0000-0000-0000-000000000000';
