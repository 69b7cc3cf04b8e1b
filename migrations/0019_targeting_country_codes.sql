-- Country targeting stored before targeting took only ISO 3166-1 alpha-2 codes (session 41,
-- src/geo/countryCodes.ts). Until then any code ICU names as a region was taken: UK, EU, UN, ZZ,
-- withdrawn codes (SU, YU, ZR). No address is ever found in one of them, so such an exclude
-- excluded nobody (a line item excluding UK was served and billed in GB), such an include never
-- served, and a GET -> PUT of the stored targeting is now a 422.
--
-- What this does to line_items.targeting.countries, include and exclude alike:
--  * A code that names one country under another code is rewritten to that code: UK -> GB (the
--    usual slip), and the codes withdrawn when a country was renamed, its territory unchanged.
--    An exclude now excludes whom the advertiser named; an include now serves there.
--  * Any other code that is not a country (a group: EU, EZ, UN, QO; a part of a country: IC, EA,
--    CQ, DG, AC, TA, CP; a state since split or merged: SU, YU, CS, DD, VD, YD; no place at
--    all: ZZ, XA, XB) is dropped. It never matched an address, so delivery stays what it was: an
--    exclude does not widen, an include keeps the countries it served. Guessing the countries a
--    group meant (which EU, as of when?) would change delivery the advertiser never saw.
--  * Except an include left empty by that: an empty include means everywhere, and the line item
--    served nowhere. Such a list keeps its codes (renamed ones rewritten), still serves nowhere,
--    and a PUT of it still answers the 422 that names them: the advertiser has to choose.
-- Duplicates (["UK", "GB"]) are removed, first place kept. Only rows that change are written, so
-- the catalog triggers tell running instances about exactly those; updated_at is left alone (no
-- one edited the line item). docs/management.md, "Targeting", says the same for advertisers.
--
-- The list of countries is src/geo/countryCodes.ts's as of this migration, copied on purpose: a
-- migration must do the same thing whenever it runs, whatever that file becomes. It holds AN (the
-- Netherlands Antilles, withdrawn), which the geo data still gives one IPv6 range: dropping it
-- would have served an exclude of AN there. (Added to this file after it had run on databases
-- started on main in session 42: those lost their AN, which no later migration can tell apart.)
CREATE FUNCTION migration_0019_country_list(list jsonb, keep_when_none_left boolean) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  WITH named AS (
    SELECT coalesce(renamed.country, element.code) AS code, element.position
    FROM jsonb_array_elements_text(list) WITH ORDINALITY AS element (code, position)
    LEFT JOIN (VALUES
      ('UK', 'GB'), -- the United Kingdom's usual slip (ICU named it)
      ('BU', 'MM'), -- Burma
      ('DY', 'BJ'), -- Dahomey
      ('FX', 'FR'), -- Metropolitan France: the geo data gives FR there
      ('HV', 'BF'), -- Upper Volta
      ('NH', 'VU'), -- New Hebrides
      ('RH', 'ZW'), -- Southern Rhodesia
      ('TP', 'TL'), -- East Timor
      ('ZR', 'CD')  -- Zaire
    ) AS renamed (former, country) ON renamed.former = element.code
  ),
  first_places AS (
    SELECT code, min(position) AS position FROM named GROUP BY code
  ),
  countries AS (
    SELECT code, position FROM first_places
    WHERE code = ANY (string_to_array(
      'AD AE AF AG AI AL AM AN AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ '
      'BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR '
      'CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR '
      'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU '
      'ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ '
      'LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ '
      'MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF '
      'PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI '
      'SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR '
      'TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW', ' '))
  )
  SELECT CASE
    WHEN keep_when_none_left AND NOT EXISTS (SELECT 1 FROM countries)
      THEN coalesce((SELECT jsonb_agg(code ORDER BY position) FROM first_places), '[]'::jsonb)
    ELSE coalesce((SELECT jsonb_agg(code ORDER BY position) FROM countries), '[]'::jsonb)
  END
$$;

UPDATE line_items
SET targeting = jsonb_set(line_items.targeting, '{countries}', fixed.countries)
FROM (
  SELECT id,
    targeting -> 'countries'
      || CASE WHEN jsonb_typeof(targeting -> 'countries' -> 'include') = 'array'
           THEN jsonb_build_object('include', migration_0019_country_list(targeting -> 'countries' -> 'include', true))
           ELSE '{}'::jsonb END
      || CASE WHEN jsonb_typeof(targeting -> 'countries' -> 'exclude') = 'array'
           THEN jsonb_build_object('exclude', migration_0019_country_list(targeting -> 'countries' -> 'exclude', false))
           ELSE '{}'::jsonb END AS countries
  FROM line_items
  WHERE jsonb_typeof(targeting -> 'countries') = 'object'
) AS fixed
WHERE line_items.id = fixed.id AND fixed.countries <> line_items.targeting -> 'countries';

DROP FUNCTION migration_0019_country_list(jsonb, boolean);
