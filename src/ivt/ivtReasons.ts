/**
 * Every reason an event can be stored as invalid traffic (events_v1.ivt), with what triggers it: the
 * one list the classifiers name their verdicts from, and that docs/tracking.md and openapi.yaml
 * restate (test/unit/ivtReasons.test.ts holds them to it). Tracking links check them in this order
 * and store the first that applies.
 */
export const ivtReasons = {
  bad_token: 'the tracking token signature does not verify (stored when its payload still decodes to ids)',
  expired_token: 'the tracking link is older than TRACKING_LINK_TTL_SECONDS',
  private_ip: 'loopback, private, link-local, carrier-grade NAT or other special-purpose address (unless IVT_ALLOW_PRIVATE_IPS)',
  datacenter: 'cloud or hosting address space: a server, not a person, made the request',
  invalid_ip: 'the client address is not an IP address',
  bot: 'a known bot, crawler, headless browser or HTTP library user agent',
  no_user_agent: 'no or an empty User-Agent: every browser sends one',
  server_side: 'the request carries a header only server code adds (CF-Worker: a Cloudflare Workers subrequest)',
  client_hints_mismatch:
    'a Chromium user agent (Chrome/N) whose Sec-CH-UA client hints name HeadlessChrome or a "Chromium" version other than N: automation that set a browser user agent and left the hints as they were; or a click navigation (with Fetch Metadata) from a Chromium 90+ user agent other than Android WebView (or its Version/4.0 shape) and Electron without any Sec-CH-UA, which every such browser sends there: an HTTP client',
  not_image_request: 'an impression whose Sec-Fetch-Dest is present and not image: a script fetch, not an image load',
  not_navigation: 'a click that is not a top-level navigation (Sec-Fetch-Mode not navigate, Sec-Fetch-Dest not document, or a Sec-Purpose/Purpose prefetch): not a person following the link',
  no_fetch_metadata:
    'an impression or click without any Sec-Fetch-Dest, -Mode or -Site to an https (or loopback) TRACKING_BASE_URL from a user agent claiming a browser that sends them with every request there (Chromium 76+, Firefox 90+, Safari and iOS browsers 16.4+): an HTTP client, not that browser',
  outdated_browser:
    'an impression or click to an https (or loopback) TRACKING_BASE_URL from a user agent claiming a Chromium before 76 or a Firefox before 90, whatever Fetch Metadata it carries: releases of 2019 and 2021 no person still runs and that never sent any, the claim an HTTP client picks to escape no_fetch_metadata',
  no_user_activation: 'a click navigation without Sec-Fetch-User from a browser that sends it with every navigation a person starts (Chromium 76+, Firefox 90+): a script or a meta refresh on the page, not a click',
  duplicate: 'the serve already counted a valid impression (or click)',
  click_without_impression: 'no valid impression of the serve of the click was recorded (an invalid one is no reader seeing the ad)',
  click_too_fast: 'the click came less than 1000 ms after the first valid impression of its serve',
  impression_unverified: 'the impression of the serve of a click could not be looked up in time: the click is kept, not billed',
  click_velocity: 'the same visitor (address, IPv6 by its /64, and user agent) made more than 3 otherwise billable clicks in 10 s or 20 in 10 minutes, or its network (the address, IPv6 by its /56, whatever the user agent) more than 6 or 60',
  placement_click_velocity:
    "an otherwise billable click of a placement beyond PLACEMENT_CLICK_VELOCITY_10S (default 20) in 10 s or PLACEMENT_CLICK_VELOCITY_10MIN (default 120) in 10 minutes of its publisher's placements together from one block of addresses (an IPv4 /24, an IPv6 /48), whatever the addresses and user agents in it, while that block clicks more than PLACEMENT_CLICK_THROUGH_MAX (default 0.2) of its valid impressions of them, and beyond 10 times those counts whatever it clicks: most often its publisher clicking its own ads",
  impression_velocity:
    "an otherwise billable tCPM impression of a placement beyond IMPRESSION_VELOCITY_10S (default 30) in 10 s or IMPRESSION_VELOCITY_10MIN (default 600) in 10 minutes of its publisher's placements together from one network (the address, IPv6 by its /56, whatever the user agent), or beyond IMPRESSION_BLOCK_VELOCITY_10S (2,000) or _10MIN (24,000) from one IPv4 /24 or IPv6 /48",
  invalid_click: 'a conversion whose click was invalid traffic',
  outside_window: 'a conversion before its click or more than ATTRIBUTION_WINDOW_DAYS after it',
} as const;

export type IvtReason = keyof typeof ivtReasons;

/** Reasons that mean a server, not the end user's browser, requested the pixel: what auto-revocation counts. */
export const serverSideReasons = ['datacenter', 'server_side'] as const satisfies readonly IvtReason[];

/**
 * The reasons a publisher's own integration check names: faults in how its pixel is fired, which it
 * fixes (from a server or a cloud, through a proxy, without a user agent, with fetch() instead of an
 * image, cached or fired twice) and which the rest of the check shows anyway (origin, ip_class,
 * requested_as). Every other reason judges whether a browser tells the truth (bot, no_fetch_metadata,
 * the velocity rules...): named per impression a second after its pixel, it would tell a fraudulent
 * publisher which of its variants pass, so the publisher sees `filtered` and the operator the reason.
 */
export const integrationFaultReasons: ReadonlySet<string> = new Set([
  'datacenter',
  'server_side',
  'private_ip',
  'invalid_ip',
  'no_user_agent',
  'not_image_request',
  'expired_token',
  'duplicate',
] satisfies IvtReason[]);
