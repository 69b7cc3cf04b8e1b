/**
 * The country codes targeting accepts: the 249 officially assigned ISO 3166-1 alpha-2 codes, and the
 * two others the geo data gives addresses in: XK (Kosovo, user-assigned) and AN (the Netherlands
 * Antilles, withdrawn in 2010: the registry still files one IPv6 range, 2401:b60:1a10::/44, under
 * it), so an exclude of AN keeps excluding those readers. Not ICU's other region names: they also
 * name UK, EU, EZ, UN, ZZ, QO, pseudo-regions (XA) and withdrawn codes (SU, DD, YU), none of which
 * an address is ever found in, so an include of one would never serve and an exclude of one would
 * exclude nobody, under a 200. A static list, so an ICU update cannot change what is accepted.
 */
const countryCodes = new Set(
  `AD AE AF AG AI AL AM AN AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ
   BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR
   CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR
   GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU
   ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ
   LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ
   MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF
   PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI
   SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR
   TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW`.split(/\s+/),
);

/** Codes often sent for a country they are not the code of, and the code to send instead. */
const usualSlips = new Map([['UK', 'the United Kingdom is GB']]);

/** Why an upper-case two-letter code is not a country targeting can match, or undefined when it is one. */
export function notACountryCode(code: string): string | undefined {
  if (countryCodes.has(code)) return undefined;
  const slip = usualSlips.get(code);
  return slip === undefined ? 'is not an ISO 3166-1 alpha-2 country code' : `is not an ISO 3166-1 alpha-2 country code: ${slip}`;
}
