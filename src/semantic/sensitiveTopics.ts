/**
 * Conversations no ad should appear next to. Each topic is judged two ways:
 *
 * - any of its phrases (whole words, as keywords match), in English or in one of the other
 *   languages listed, vetoes the ad. The phrases are the unambiguous ones; words with everyday
 *   senses ("died" of a phone battery, "crash" of an app) are left to the similarity, or said
 *   after a person or pet ("my uncle died"), or, as `ambiguous`, need a confirming word ("the
 *   hurricane destroyed ...");
 * - a conversation whose SIF vector is at least BRAND_SAFETY_MIN_SIMILARITY similar to the topic's
 *   description vetoes it too, provided it has a cue (of any topic: the similarity often lands on
 *   a neighbouring one, a hospice near bereavement) and none of the topic's `clears`.
 *   The vectors are English words, so this judges English only. Similarity alone reads a
 *   conversation's neighbourhood, not its subject: "flowers for mother's day" is near mourning
 *   (flowers, mother) and "car insurance after a fender bender, nobody hurt" near an accident; a
 *   conversation that never names the topic in any word, or says outright that nobody was hurt,
 *   is not about it.
 */
export interface SensitiveTopic {
  name: string;
  /**
   * What the similarity compares a conversation with; none for a topic judged by its phrases alone
   * (addiction: the neighbours of its words are drinks, bars and betting, what ads are about).
   */
  description?: string;
  /**
   * English phrases. Slots: `{relative}` stands for any of RELATIVES, `{named relative}` for
   * NAMED_RELATIVES, `{pet}` for PETS (see below); a phrase that starts with `{someone}` matches
   * only after a person or pet named just before it (SOMEONE, "in law" allowed after it and one of
   * FILLERS between: "my mother-in-law suddenly died", "our dog passed"), `{anyone}` the same or
   * "he", "she", "ex", `{anybody}` the same or the speaker ("I had a bad fall"), `{pet animal}` a pet alone, `{place}` one of PLACES ("the whole village is
   * under water"), `{having}` one of HAVING ("my wife has ALS"), `{starting}` one of STARTING ("I
   * start radiation next week"), `{taking}` one of TAKING ("using meth"), `{first}` one of FIRST ("the first christmas without dad"), `{nearly}` one of NEARLY ("nearly drowned"), `{calling}` one of CALLING ("that is abuse"), `{habit}` one of HABIT ("keep hurting myself"), `{structure}` one of STRUCTURES ("the block collapsed"); a
   * leading `{not after NAME}` does not match when one of the few words before it is one of
   * EVERYDAY_BEFORE[NAME] ("sunscreen against skin cancer"), a leading `{not just after NAME}` when the
   * words just before it are one of the runs of EVERYDAY_JUST_BEFORE[NAME] ("that interview was a car
   * crash", "she works in palliative care"), a leading `{not with NAME}` when the
   * conversation has one of EVERYDAY_WITH[NAME] anywhere ("Cancer brings warmth, Scorpio depth"), a
   * leading `{not near NAME}` when one of EVERYDAY_NEAR[NAME] is about it (brandSafety.ts: in the same
   * sentence, a few words away, with no word of the speaker's or the listener's (PERSONAL) between nor
   * just before the phrase; or in the question when the phrase is in the answer): "the film's plot, where
   * the hero has cancer", not "my mum has cancer, we watched the film together";
   * a trailing `{unless NAME}` does not match when the next words are one of EVERYDAY_NEXT[NAME]
   * ("passed the test", "beat me at chess", "lost my mum at the shops"; `{unless NAME NAME}`: any of
   * the named lists'), a trailing `{if NAME}`
   * only when the conversation has one of CONFIRMED_WITH[NAME] ("we lost everything" with a flood's
   * or a fire's word). No phrase matches when the next word makes it a theme (THEMED: "a
   * funeral-themed party").
   */
  phrases: string[];
  /**
   * Phrases whose everyday sense is as common as the sensitive one ("hurricane" of a season sale,
   * "stage three" of a bike race, "terminal" of an airport): they veto only when the conversation
   * also has one of `confirmedBy` (the harm or the medicine: "destroyed", "survived", "doctor").
   */
  ambiguous: string[];
  confirmedBy: string[];
  /**
   * Phrases in the other languages the service is most asked in: as unambiguous, and judged whatever the serve's `language`;
   * (session 45) a few of the commonest in Swedish, Russian, Romanian, Indonesian, Czech, Tagalog and Hindi as typed in Latin letters.
   */
  otherLanguages: Record<'es' | 'de' | 'fr' | 'it' | 'pt' | 'nl' | 'pl' | 'tr', string[]> & Partial<Record<'sv' | 'ru' | 'ro' | 'id' | 'cs' | 'tl' | 'hi', string[]>>;
  /** Words of which the conversation must have one (of any topic's) for the similarity to veto (a topic without a description has none). */
  cues: string[];
  /** Phrases that say the topic's harm did not happen: with one, the similarity does not veto (a phrase still does). */
  clears: string[];
}

/**
 * People a conversation names when one of them died: "lost my dad", "RIP grandpa". A phrase that
 * ends with one is not followed by 's (a possessive: "lost my dad's watch", "rip my sister's CDs")
 * nor by "in law" (then the in-law is the person: "lost my father-in-law's drill" is no death).
 * Pets are left out of "lost my ..." (a lost dog is more often a missing one) but not of "RIP"; so
 * is "baby" ("lost my baby weight"), but for "lost our baby".
 */
export const RELATIVES = [
  'mum', 'mom', 'mother', 'mummy', 'mommy', 'mama', 'dad', 'father', 'daddy', 'papa', 'parents',
  'husband', 'wife', 'partner', 'fiance', 'fiancee', 'boyfriend', 'girlfriend',
  'son', 'daughter', 'child', 'brother', 'sister', 'twin',
  'grandma', 'grandpa', 'grandmother', 'grandfather', 'granny', 'grandad', 'granddad', 'nan', 'nana', 'gran',
  'uncle', 'aunt', 'auntie', 'cousin', 'nephew', 'niece', 'stepdad', 'stepmom', 'stepmum', 'best friend',
  // As people type them (session 45: "hubby fell off the ladder").
  'hubby', 'wifey',
  'mother in law', 'father in law', 'son in law', 'daughter in law', 'brother in law', 'sister in law',
];
/** RELATIVES in Spanish, for "perdí a mi padre". */
const RELATIVES_ES = [
  'padre', 'madre', 'papá', 'mamá', 'esposo', 'esposa', 'marido', 'mujer', 'hijo', 'hija', 'hermano', 'hermana', 'abuelo', 'abuela', 'tío', 'tía', 'novio', 'novia',
  'mejor amigo', 'mejor amiga', 'bebé',
];
/** Those also named without "my" or "our": "we lost mum", "RIP dad". */
export const NAMED_RELATIVES = ['mum', 'mom', 'mama', 'dad', 'papa', 'grandma', 'grandpa', 'granny', 'grandad', 'granddad', 'nan', 'nana', 'gran'];
/** Animals people keep and mourn. */
export const PET_ANIMALS = [
  'dog', 'cat', 'puppy', 'kitten', 'kitty', 'pup', 'doggy', 'rabbit', 'bunny', 'hamster', 'horse', 'pony', 'pet',
  'goldfish', 'fish', 'parrot', 'budgie', 'tortoise', 'gerbil', 'ferret',
];
/** Pets as a phrase names them, for `{pet}` ("rip our dog", "put my cat down"). */
export const PETS = ['my', 'our'].flatMap((whose) => PET_ANIMALS.map((animal) => `${whose} ${animal}`));
/**
 * The person or pet a `{someone}` phrase follows: one word, the relatives' and a few more ("my
 * friend died", "our dog passed"), the in-laws by their first word ("mother" of "mother in law").
 */
export const SOMEONE = [
  ...new Set(RELATIVES.map((relative) => relative.split(' ')[0]!).filter((word) => word !== 'best')),
  'friend', 'mate', 'colleague', 'coworker', 'neighbour', 'neighbor', 'neighbours', 'neighbors', 'friends', 'grandparents', 'boss', 'baby', 'grandson', 'granddaughter', 'stepson', 'stepdaughter',
  // Session 45: "kid fell out of a second floor window".
  'kid', 'toddler',
  // People in charge of the speaker, for what they do to them ("my coach keeps grabbing me").
  'coach', 'teacher', 'tutor', 'stepfather', 'stepmother', 'pastor', 'priest', 'landlord',
  ...PET_ANIMALS,
];
/** `{anyone}`: SOMEONE or these, for what a person does to the speaker ("he hits me"). */
export const ANYONE_ELSE = ['he', 'she', 'ex'];
/** `{anybody}`: `{anyone}` or the speaker, for what happens to either ("I had a bad fall", "she had a bad fall"). */
export const SPEAKER = ['i', 'we'];
/**
 * Every phrase is also read with these words in place of a word of it (brandSafety.ts,
 * `saidOfOthers`; session 40): what the speaker says of themselves is said of someone else too ("found
 * cuts on her thighs", "tried to take his own life"), and his, her and their stand for each other.
 * Not the other way round: "bruises on her arms" in a care home is abuse, "bruises on my arms" after
 * the gym is not; nor "our" ("lost our house" is not "lost my house" said of others).
 */
export const OTHER_PERSONS: Record<string, string[]> = {
  my: ['his', 'her', 'their'],
  his: ['her', 'their'],
  her: ['his', 'their'],
  their: ['his', 'her'],
  myself: ['himself', 'herself', 'themselves'],
  himself: ['herself', 'themselves'],
  herself: ['himself', 'themselves'],
  themselves: ['himself', 'herself'],
};
/** `{place}`: what a flood puts under water ("our street is under water"), not a basement a washing machine flooded. */
export const PLACES = [
  'town', 'village', 'city', 'street', 'streets', 'road', 'roads', 'house', 'houses', 'home', 'homes',
  'neighbourhood', 'neighborhood', 'area', 'farm', 'region', 'county', 'valley', 'estate',
];
/** `{having}`: the words before a disease named by its letters ("my wife has ALS", "living with MS"). */
export const HAVING = ['has', 'have', 'had', 'with', 'of', 'got'];
/** `{taking}`: the words before a street drug taken ("she's using meth again", "he was on cocaine"). */
export const TAKING = ['on', 'using', 'taking', 'took', 'smoking', 'snorting', 'injecting', 'doing', 'uses', 'used', 'smokes', 'snorts'];
/** `{starting}`: the words before a treatment said without its medical name ("I start radiation next week"). */
export const STARTING = ['start', 'starts', 'starting', 'started', 'begin', 'begins', 'beginning', 'began', 'finish', 'finishes', 'finishing', 'finished', 'during', 'after', 'more', 'daily'];
/** `{first}`: an occasion lived for the first time without someone ("our first christmas without dad"). */
export const FIRST = ['first', '1st'];
/** `{nearly}`: a harm that almost happened ("my son nearly drowned"). */
export const NEARLY = ['nearly', 'almost'];
/**
 * `{habit}`: the words before a harm done to oneself as a habit or an urge ("I keep hurting myself when
 * things get bad", "the urge to burn myself"); keyed by the harm, since "keep" and "stop" are in many
 * everyday bodies.
 */
export const HABIT = ['keep', 'keeps', 'been', 'started', 'start', 'stop', 'to', 'of', 'about'];
/** `{structure}`: what collapses on people ("the block across from ours collapsed"), keyed by "collapsed" for the same reason. */
export const STRUCTURES = ['building', 'buildings', 'block', 'tower', 'bridge', 'stand', 'ceiling', 'mall', 'factory'];
/** `{span}`: a time counted before "sober" ("three years sober"). */
export const SPANS = ['year', 'years', 'month', 'months', 'week', 'weeks', 'day', 'days'];
/** `{calling}`: the words before a harm named for what it is ("taking your money and locking you in are abuse"), not "drug abuse". */
export const CALLING = ['is', 'are', 's', 'was', 'were', 'be'];
/** Words allowed between `{someone}` and the rest: "my dad suddenly died", "my ex keeps threatening me". */
export const FILLERS = [
  'just', 'sadly', 'suddenly', 'unexpectedly', 'recently', 'peacefully', 'tragically', 'finally',
  'has', 'had', 'is', 'was', 'are', 'were', 'got', 'keeps', 'kept', 'always', 'sometimes', 'still', 'often', 'also', 'then',
  // "he's been violent", "my dad's died" (session 42).
  's', 'been',
];
/**
 * Where a relative is lost for an hour, not for ever: "lost my mum at the shops", "lost our son in
 * the crowd" (`{unless place}`); "at the weekend" or "in the accident" stays a death.
 */
const LOST_AT = [
  'shops', 'shop', 'supermarket', 'mall', 'store', 'market', 'shopping centre', 'shopping center', 'crowd', 'crowds',
  'fair', 'funfair', 'festival', 'zoo', 'park', 'theme park', 'beach', 'airport', 'station', 'concert', 'museum',
].flatMap((place) => [`at the ${place}`, `in the ${place}`]);
/** The same in Spanish, for "perdí a mi hijo en el supermercado". */
const LOST_AT_ES = [
  'en el supermercado', 'en la tienda', 'en el centro comercial', 'en el mercado', 'en el parque', 'en la playa', 'en el aeropuerto', 'en la estación', 'en la estacion',
  'en la feria', 'en el concierto', 'en el zoo', 'entre la gente', 'entre la multitud',
];
/** What is declined or handed down after "passed on" ("passed on the flat", "passed on her recipe"). */
const HANDED_ON = [
  'flat', 'house', 'apartment', 'place', 'room', 'offer', 'job', 'role', 'position', 'chance', 'opportunity', 'deal', 'car', 'invitation', 'invite', 'trip',
  'tickets', 'ticket', 'idea', 'message', 'news', 'information', 'info', 'baton', 'torch', 'recipe', 'recipes', 'tradition', 'traditions', 'genes', 'gene',
  'cold', 'bug', 'virus', 'knowledge', 'skills', 'love', 'advice', 'tips', 'name', 'watch', 'ring', 'dessert', 'rest', 'savings', 'discount',
];
/** The twelve signs, for "a cancer compatible with a scorpio", "cancer and leo". */
const STAR_SIGNS = ['aries', 'taurus', 'gemini', 'cancer', 'leo', 'virgo', 'libra', 'scorpio', 'sagittarius', 'capricorn', 'aquarius', 'pisces'];
/** A phone or battery "died" in Spanish and German as in English ("mi móvil se murió", "mein Handy ist gestorben"). */
const DEVICES = [
  'móvil', 'movil', 'celular', 'teléfono', 'telefono', 'batería', 'bateria', 'portátil', 'portatil', 'ordenador', 'computadora', 'coche', 'carro',
  'handy', 'akku', 'telefon', 'computer', 'rechner', 'auto', 'drucker', 'laptop', 'tablet', 'iphone', 'pc', 'router',
  'telefoon', 'mobiel', 'gsm', 'batterij', 'accu',
  // Russian (session 45: "телефон умер").
  'телефон', 'смартфон', 'ноутбук', 'аккумулятор', 'батарея', 'компьютер', 'комп', 'экран', 'айфон',
];
/**
 * A school or college piece of work (session 45: "the 1906 san francisco earthquake for my essay", "how did people die in pompeii,
 * school project", "hamlet's to be or not to be speech for my a level"): clears the similarity of bereavement, accident, disaster and
 * serious diagnosis, and refutes a history's disaster words; a death in the speaker's family is a phrase ("my dad died, my essay is late").
 * Runs that say a piece of work (after review, session 45): not a bare "a level" ("i feel hopeless at a level i can't explain"),
 * nor "for my english" ("sorry for my english, ..."), nor an exam that is only a date ("air raid sirens all night and my a level exam is tomorrow").
 */
const SCHOOLWORK = [
  'for my essay', 'essay on', 'school project', 'a school project', 'class project', 'history project', 'science project', 'year 9 project', 'for a project', 'for my project',
  'history presentation', 'a presentation on', 'for my a level', 'for a level', 'a level coursework', 'for gcse', 'for my gcse', 'answer for english', 'for english class', 'for my english class',
  'for my class', 'for english lit', 'for my english lit', 'for english literature', 'for my english essay', 'english essay', 'english homework', 'kids assembly', 'school assembly', 'for an assembly',
];
/** The words before a phrase that give it its everyday sense (`{not after NAME}`): up to four words back. */
export const EVERYDAY_BEFORE: Record<string, string[]> = {
  /**
   * Guarding or insuring against an illness, or a star sign: "sunscreen to protect kids from skin cancer", "my
   * zodiac sign is Cancer". Not "risk" ("the risk of my cancer coming back"), nor the signs' names
   * ("my son Leo has cancer").
   */
  prevention: [
    'protect', 'protects', 'protecting', 'protection', 'prevent', 'prevents', 'preventing', 'prevention', 'sunscreen', 'sunblock', 'spf', 'zodiac', 'horoscope', 'astrology',
    // Insuring against it (session 41: "pet insurance for a puppy, which ones cover cancer treatment"); "my dog has cancer, will the insurance cover it" still vetoes.
    'insurance', 'insurer', 'insurers', 'cover', 'covers', 'coverage', 'policy', 'policies',
  ],
  device: DEVICES,
  /** A figure of speech: "I nearly had a stroke when I saw the bill". */
  exaggeration: ['nearly', 'almost', 'practically', 'basically', 'literally'],
  /** A drink: "an Irish car bomb for St Patrick's day". */
  cocktail: ['irish', 'cocktail', 'cocktails', 'drink', 'drinks', 'shot', 'shots', 'pint', 'guinness'],
  /** A mess: "our kitchen was a total war zone after the kids baked". */
  mess: ['total', 'absolute', 'complete', 'utter', 'kitchen', 'bedroom', 'room', 'desk', 'inbox', 'office', 'playroom', 'garage', 'bathroom', 'classroom'],
};
/**
 * The runs of words just before a phrase that give it its everyday sense (`{not just after NAME}`):
 * what a word alone a few words back cannot tell ("was in a car crash" is one, "was a car crash" a
 * figure of speech).
 */
export const EVERYDAY_JUST_BEFORE: Record<string, string[]> = {
  /**
   * An event called a crash: "that interview was a car crash", "a total car crash of a launch" (not
   * "there was a car crash on the M25": the runs name what went badly).
   */
  figure: [
    'such a', 'what a', 'bit of a', 'like a', 'like watching a', 'total', 'absolute', 'complete', 'utter', 'slow motion',
    ...[
      'interview', 'date', 'first date', 'presentation', 'meeting', 'pitch', 'speech', 'exam', 'audition', 'performance', 'debate', 'game', 'match', 'season', 'launch', 'release',
      'rollout', 'migration', 'project', 'campaign', 'budget', 'finale', 'album', 'party', 'wedding', 'dinner', 'holiday', 'trip', 'week', 'day', 'year', 'show', 'episode', 'gig', 'career',
    ].flatMap((event) => ['was a', 'is a', 's a', 'turned into a', 'became a'].map((was) => `${event} ${was}`)),
  ],
  /**
   * A person who is a Cancer (session 40: "my girlfriend is a cancer, what do cancers like?"): said of
   * a person with "is a", a star sign, not an illness, which people have ("has cancer", "it is a cancer
   * of the blood" has no person).
   */
  sign: [
    'i am a', 'i m a', 'im a',
    // A line of latitude named by the sign (session 42: "the tropic of cancer marker in taiwan").
    'tropic of',
    ...['she', 'he', 'girlfriend', 'boyfriend', 'wife', 'husband', 'partner', 'friend', 'mum', 'mom', 'dad', 'son', 'daughter', 'sister', 'brother', 'boss', 'crush'].flatMap((who) => [`${who} is a`, `${who} s a`]),
  ],
  /**
   * A life lived, not one ended (session 41, the "life" cue bs40 left: "a photo board of his life" for a grandad's 90th birthday,
   * "battery life", "work life balance"); "take his own life" and "end my life" are phrases.
   */
  living: [
    'of his', 'of her', 'of my', 'of their', 'of your', 'of our', 'battery', 'shelf', 'work', 'still', 'real', 'social', 'love', 'night', 'family', 'daily', 'everyday', 'home', 'school', 'student',
    'full of', 'time of my', 'love of my', 'way of', 'slice of', 'circle of', 'meaning of', 'story of my',
    'long', 'happy', 'full', 'healthy', 'good', 'great', 'second', 'new', 'wild', 'sea', 'plant', 'game of', 'for', 'city', 'country', 'village', 'office', 'married', 'single', 'adult', 'modern',
  ],
  /**
   * An illness named as an example of many (session 45: an insurer's "a listed condition such as cancer, a heart attack or a stroke"),
   * not one someone has; not "like" ("the doctor said it looks like cancer").
   */
  example: ['such as', 'such as skin', 'such as breast', 'including', 'including skin', 'including breast', 'for example', 'for instance', 'e g'],
  /** A thing dead, not a person (session 45, the "dead" cue: "car battery dead again in the cold", "my phone's dead"). */
  gadget: ['battery', 'batteries', 'phone', 'laptop', 'tablet', 'ipad', 'remote', 'controller', 'torch', 'headphones', 'earbuds', 'charger', 'router', 'printer', 'engine']
    .flatMap((thing) => [thing, `${thing} is`, `${thing} s`, `${thing} was`, `${thing} went`, `${thing} totally`, `${thing} completely`]),
  /** A record named by its title (session 42: "is arcade fire's album funeral worth buying on vinyl"). */
  disc: ['album', 'albums', 'record', 'lp', 'ep', 'song', 'track', 'single', 'the band', 'band'],
  /** A field someone works in, not a patient's care: "a nurse who works in palliative care", "a degree in palliative medicine". */
  work: ['works', 'work', 'working', 'worked', 'career', 'careers', 'job', 'jobs', 'nurse', 'nurses', 'nursing', 'degree', 'course', 'training', 'specialises', 'specializes', 'specialising', 'specializing', 'volunteers', 'volunteer', 'volunteering'].map((field) => `${field} in`),
};
/**
 * Words (or runs of words) anywhere in a conversation that give a phrase its everyday sense (`{not with NAME}`): a
 * Cancer paired with another sign ("a cancer woman and a scorpio man": the assistant's answer says
 * "Cancer brings warmth" too, with no star-sign word next to it). Cancer and Leo are left out (a
 * disease, a name): "my son Leo has cancer".
 */
export const EVERYDAY_WITH: Record<string, string[]> = {
  /** The Undertaker of the ring: "who won, The Undertaker or Kane at WrestleMania?". */
  wrestling: ['wrestlemania', 'wrestling', 'wrestler', 'wrestlers', 'wwe', 'wwf', 'smackdown', 'summerslam', 'kane'],
  astrology: [
    ...STAR_SIGNS.filter((sign) => sign !== 'cancer' && sign !== 'leo'), 'zodiac', 'horoscope', 'horoscopes', 'astrology', 'astrological',
    // A person called by the sign and a sign's stone (session 42: "what jewellery would suit a cancer woman ... Pearls and moonstone are linked to Cancer"); Turkish "burcu" (sign).
    'cancer woman', 'cancer women', 'cancer man', 'cancer men', 'birthstone', 'birth stone', 'burcu', 'burcuyum', 'yengeç', 'yengec',
    // The sign in the other languages (session 45: "Krebs als Sternzeichen, passt das zu Skorpion").
    'sternzeichen', 'horoskop', 'skorpion', 'signo', 'signos', 'horóscopo', 'horoscopo', 'escorpio', 'escorpião', 'escorpiao', 'signe astrologique', 'segno zodiacale', 'oroscopo', 'sterrenbeeld', 'horoscoop', 'schorpioen',
  ],
  /** Writing about a job in the field (session 45: "a cover letter for a nursing job in oncology ... your experience of chemotherapy"). */
  career: ['cover letter', 'covering letter', 'personal statement', 'job application', 'job interview', 'nursing job', 'nursing jobs', 'job in oncology', 'oncology nursing', 'oncology nurse job'],
  /** Radiation of a plant, a bomb or a phone, not a treatment (session 45: "chernobyl ... spread radiation"). */
  nuclear: ['chernobyl', 'fukushima', 'hiroshima', 'nagasaki', 'reactor', 'reactors', 'nuclear power', 'nuclear plant', 'power plant', 'atomic bomb', 'microwave', 'microwaves', 'uv', 'phone radiation', 'radiation from'],
  /**
   * Funerals and mourning as a subject of study (session 42: "for music history: why did Chopin's funeral march become so famous",
   * "in Victorian literature, why are funerals described in such detail"): named subjects, not a student's week ("my history exam is on the day of the funeral" stays vetoed).
   */
  study: [
    'music history', 'art history', 'victorian literature', 'english literature', 'in literature', 'literary', 'the victorians', 'victorian era',
    'ancient egypt', 'ancient egyptians', 'the pharaohs', 'ancient rome', 'ancient greece',
    // A genre's setting (session 45: "horror films set in a funeral home").
    'horror film', 'horror films', 'horror movie', 'horror movies', 'films set in', 'movies set in', 'books set in', 'novels set in',
  ],
  /** A mock eulogy for someone alive (session 42: "a eulogy for my dog's 10th birthday ... he's very much alive"). */
  alive: ['very much alive', 'alive and well', 'alive and kicking', 'mock eulogy', 'joke eulogy', 'fake eulogy'],
  /** A fall the speaker got up from (session 39: "came off my motorbike at low speed, no pain, bike's just scratched"). */
  unhurt: [
    'no pain', 'not hurt', 'wasn t hurt', 'weren t hurt', 'unhurt', 'uninjured', 'no injuries', 'not injured', 'nobody hurt', 'nobody was hurt', 'no one hurt', 'no one was hurt',
    'only my pride', 'just my pride', 'only scratched', 'just scratched', 'just a scratch', 'just scratches', 'not a scratch', 'without a scratch', 'no harm done',
  ],
  /**
   * A war of the history books and its remembrance (session 41: "what does the red poppy mean on Remembrance Day? ... soldiers who died in war"):
   * "war" with a harm's word is not one lived through; a war's other phrases (shelling, air strikes, fled the fighting) still veto.
   */
  history: [
    'remembrance day', 'remembrance sunday', 'armistice', 'veterans day', 'memorial day', 'anzac day', 'poppy', 'poppies', 'world war', 'first world war', 'second world war',
    'ww1', 'ww2', 'wwi', 'wwii', 'battle of', 'in history', 'history lesson', 'history class', 'history homework', 'history essay', 'historians', 'historian',
    // School work on a past disaster (session 45: "the 1906 san francisco earthquake for my essay", "chernobyl ... for a year 9 project").
    ...SCHOOLWORK,
  ],
  /**
   * A month off drink, a test at the roadside (after review, session 45: "two weeks sober for dry january, any mocktail ideas?").
   * Not "no alcohol" or "alcohol free": recovery talks that way too ("a year sober, no alcohol in the house").
   */
  abstaining: ['dry january', 'sober october', 'sober curious', 'mocktail', 'mocktails', 'field sobriety', 'sobriety test', 'sobriety checkpoint'],
  /** A storm lived through unharmed: "the hurricane hit our area last year but we were fine" (runs of words, as CONFIRMED_WITH's). */
  unharmed: [
    'we were fine', 'we were all fine', 'we were ok', 'we were okay', 'we were safe', 'we were lucky', 'we are fine', 'we re fine', 'we re ok', 'we re okay',
    'everyone was fine', 'everyone was ok', 'everyone was okay', 'everybody was fine', 'nobody was hurt', 'no one was hurt', 'no damage',
  ],
};
/**
 * Runs that give a phrase its everyday sense when they are about it (`{not near NAME}`, brandSafety.ts),
 * not anywhere in the conversation: a story's plot (session 45: "plot of the fault in our stars", "how does
 * walt's cancer diagnosis set up the show": an illness of a character). Session 46: anywhere, "the film" in
 * "my mum has cancer, we watched the film together last night" switched the phrase off.
 */
export const EVERYDAY_NEAR: Record<string, string[]> = {
  plot: [
    'plot of', 'the plot', 'plot summary', 'plot twist', 'spoiler', 'spoilers', 'the show', 'the tv show', 'the series', 'the novel', 'the film', 'the movie', 'the character', 'main character',
    'season 1', 'season one', 'first season', 'the episode', 'the sitcom', 'the musical',
    // Session 46 (batch 13: "in grey's anatomy which character has the brain tumour in season 5").
    'which character', ...['2', '3', '4', '5', '6', '7', '8', '9', '10'].map((n) => `season ${n}`),
  ],
  /**
   * Medicine as a subject of study (session 46, batch 13: "revision notes on how chemotherapy works", "the difference between a benign and a malignant
   * tumour, for my gcse", "the survival rate for breast cancer ... for a statistics assignment"); a student's own illness keeps its "my" just before.
   */
  coursework: [
    'revision notes', 'revision guide', 'for my gcse', 'for gcse', 'gcse', 'a level biology', 'for my a level', 'biology', 'survival rate', 'survival rates', 'statistics',
    'assignment', 'for my essay', 'dissertation', 'coursework', 'homework', 'lecture', 'textbook', 'exam question',
  ],
  /** Money raised for a cancer charity (batch 13: "a charity bake sale for macmillan cancer support"). */
  fundraising: ['bake sale', 'fundraiser', 'fundraising', 'sponsored', 'raise money', 'raising money', 'coffee morning', 'raffle'],
};
/**
 * Words that make an illness or a death the speaker's or the listener's own (`{not near NAME}` and `{if personal}`): "my mum
 * has cancer", "I'm sorry your dad has cancer", "since jake's death I can't sleep". Not "our": titles have it ("The Fault in Our Stars").
 */
export const PERSONAL = ['i', 'me', 'my', 'mine', 'myself', 'we', 'us', 'you', 'your', 'yours', 'yourself'];
/**
 * The words (or runs of words) that confirm a phrase as often said of something else (`{if NAME}`):
 * "we lost everything" with a flood's or a fire's word (not a bet or a game), "the front line" with a
 * war's (not customer service). Words with everyday senses of their own only as runs: water that came
 * in, not a phone dropped in the water; the fire, not a Fire tablet; the war, not a price war.
 */
export const CONFIRMED_WITH: Record<string, string[]> = {
  personal: PERSONAL,
  ruin: [
    'flood', 'floods', 'flooded', 'flooding', 'floodwater', 'fires', 'flames', 'blaze', 'storm', 'tornado', 'hurricane', 'typhoon', 'cyclone',
    'earthquake', 'quake', 'wildfire', 'tsunami', 'bombing', 'shelling', 'missile', 'missiles',
    'water came', 'water poured', 'water rose', 'water rising', 'flood water', 'the fire', 'a fire', 'house fire', 'the war', 'a war',
    // A dam that gave way, a slide or an eruption (session 38: "lost everything when the dams broke").
    'dam broke', 'dams broke', 'dam burst', 'dams burst', 'dam collapsed', 'dams collapsed', 'dam failed', 'dams failed', 'mudslide', 'avalanche', 'eruption', 'erupted', 'lava',
    'bushfire', 'bushfires', 'bush fire', 'forest fire', 'landslide', 'river came', 'sea came',
  ],
  injury: [
    'hospital', 'x ray', 'xray', 'cast', 'plaster', 'surgery', 'ambulance', 'paramedics', 'fracture', 'fractured', 'injury', 'injuries', 'injured', 'hurt',
    'pain', 'crutches', 'doctor', 'accident', 'a e', 'scan', 'stitches', 'icu',
    // A night on the ward (session 39: "broke my collarbone and three ribs and they kept me in overnight").
    'kept me in', 'kept him in', 'kept her in', 'kept them in', 'kept in overnight', 'admitted', 'surgeon', 'operation', 'sling',
    // Still hurt months after (session 42: "still in a wheelchair after the crash in june").
    'wheelchair', 'physio', 'physiotherapy', 'rehab', 'whiplash',
  ],
  /** A burn treated at hospital ("a nasty burn on her arm, A&E gave us dressings"), not one from the oven tray that a plaster fixes. */
  treated: ['a e', 'hospital', 'ambulance', 'paramedics', 'burns unit', 'burns clinic', 'dressing clinic', 'skin graft', 'plastic surgeon', 'icu', 'admitted', 'urgent care', 'emergency room'],
  /** Fear of a person ("he punches the wall next to my head", "following me home ... the police"), not a teenager's temper after a game. */
  fear: ['scared', 'afraid', 'frightened', 'frightening', 'terrified', 'unsafe', 'police', 'controlling', 'threat', 'threatening', 'threatened', 'next to my head', 'at my head', 'restraining', 'injunction'],
  /** A pile-up on a road, not of laundry. */
  road: ['car', 'cars', 'motorway', 'highway', 'freeway', 'interstate', 'lorry', 'lorries', 'truck', 'trucks', 'driver', 'drivers', 'vehicles', 'crash', 'crashed', 'collision', 'written', 'fog'],
  /** Indoors, for water risen inside a home ("the water's up to the second step inside our house"), not at the beach. */
  indoors: ['inside our', 'inside the house', 'in the house', 'our house', 'the house', 'downstairs', 'ground floor', 'the stairs', 'second step', 'first step', 'living room', 'front door', 'back door', 'upstairs', 'kitchen', 'lounge', 'hallway'],
  /** Harm done to oneself again ("relapsed, used the razor on my legs again after 8 months"), not a shave. */
  relapse: [
    'relapsed', 'relapse', 'relapsing', 'months clean', 'weeks clean', 'days clean', 'years clean', 'clean for', 'urges', 'the urge', 'scars', 'hide the marks', 'hide the cuts',
    // The tools found (session 40: "found blades in my daughter's pencil case and cuts on her thighs").
    'found blades', 'found razor blades', 'found a blade', 'blades in her', 'blades in his', 'blades in my', 'long sleeves',
  ],
  /** Someone out of reach after saying goodbye ("posting goodbye messages and isn't answering his phone"), not a leaving card. */
  unreachable: ['not answering', 'isn t answering', 'isnt answering', 'won t answer', 'wont answer', 'not picking up', 'isn t picking up', 'welfare check'],
  /** A vet's farewell ("we had to let our old boy go this morning, the vet came to the house"), not an employee let go. */
  farewell: ['vet', 'vets', 'the vet', 'ashes', 'cremation', 'cremated', 'grief', 'grieving', 'heaven', 'rainbow bridge', 'his bed', 'her bed', 'his toys', 'her toys', 'his collar', 'her collar', 'miss him', 'miss her', 'without him', 'without her', 'so quiet'],
  /** A rescue under way or its toll (a collapse, a capsize, a leak: session 39), not an instructor who helped a kayaker back in. */
  rescue: [
    'rubble', 'rescue', 'rescuers', 'rescued', 'missing', 'survivors', 'dead', 'killed', 'injured', 'bodies', 'casualties', 'evacuate', 'evacuated', 'evacuation', 'coastguard', 'lifeboat',
    'get out', 'told to leave', 'pulling people',
  ],
  /** A Dutch pet's end at the vet's ("onze hond is ingeslapen bij de dierenarts"), not a Fleming fallen asleep. */
  afscheid: ['dierenarts', 'verdriet', 'verdrietig', 'gemis', 'afscheid', 'gecondoleerd', 'missen'],
  /** A place gone as a quake or a wildfire leaves it ("my husband's family village in the mountains is gone"). */
  gone: ['is gone', 'are gone', 'was gone', 'were gone', 'completely gone', 'all gone', 'just gone', 's gone'],
  war: [
    'the war', 'a war', 'at war', 'soldier', 'soldiers', 'troops', 'army', 'artillery', 'bombing', 'shelling', 'missile', 'missiles', 'servicemen', 'serviceman', 'invasion', 'mobilised', 'mobilized', 'conscripted', 'deployed',
    // Air raids, the fighting and the tracing of family (session 40: "sirens all night again in odesa"; session 41: the words of any war, not its cities,
    // which session 40 listed and which age with the news: "my family is still in gaza and I haven't heard from them ... the ICRC's family links service").
    'sirens', 'air raid', 'air raids', 'the fighting', 'ceasefire', 'bomb shelter', 'bomb shelters', 'under siege', 'besieged', 'blockade', 'humanitarian', 'aid convoy', 'conflict zone',
    'airstrike', 'airstrikes', 'air strike', 'air strikes', 'drone strike', 'drone strikes', 'icrc', 'red crescent', 'family links', 'tracing request', 'tracing requests', 'militia', 'militias',
  ],
  /** A pregnancy's words: "the scan showed no heartbeat at 11 weeks", not a watch's reading. */
  pregnancy: ['pregnancy', 'pregnant', 'baby', 'weeks', 'scan', 'ultrasound', 'midwife', 'miscarriage', 'miscarried', 'gestation'],
  /** Hostages taken (session 41: "any news on the hostages taken in the attack"), not a toddler who holds the evening hostage. */
  captivity: ['attack', 'attacks', 'attackers', 'kidnapped', 'abducted', 'captivity', 'captors', 'militants', 'gunmen', 'terrorists', 'terror', 'negotiations', 'negotiators', 'freed', 'released'],
  /** The end a vet or a doctor says has come (session 41: "the vet says there's nothing more they can do for our old horse"), not a garage's. */
  care: ['vet', 'vets', 'doctor', 'doctors', 'hospital', 'hospice', 'nurse', 'nurses', 'oncologist', 'consultant', 'palliative', 'treatment', 'surgeon', 'ward'],
  /** A way to die asked about (session 41: "is jumping from the 10th floor painless"), not a dentist's drill. */
  method: ['jumping from', 'jumping off', 'jump from', 'jump off', 'hanging myself', 'hang myself', 'drowning', 'overdose', 'overdosing', 'gun', 'carbon monoxide', 'bleed out', 'way to die', 'way to go'],
  /** Drugs or drink stopped at once (session 41: "day 3 coming off oxy cold turkey"), not sugar. */
  drugs: [
    'oxy', 'oxycodone', 'opioid', 'opioids', 'opiates', 'heroin', 'fentanyl', 'methadone', 'meth', 'cocaine', 'crack', 'benzos', 'xanax', 'painkillers', 'pills', 'alcohol', 'drinking', 'booze',
    'withdrawal', 'withdrawals', 'detox', 'relapse', 'relapsed', 'using again',
  ],
  /** Gambling that took more than a stake (session 41: "I lost all our savings gambling"), not a bet on the match. */
  stakes: [
    'lost all our savings', 'lost our savings', 'lost all my savings', 'lost my savings', 'savings are gone', 'debt', 'debts', 'remortgage', 'can t stop', 'cant stop', 'cannot stop', 'helpline',
    'doesn t know', 'doesnt know', 'behind her back', 'behind his back',
  ],
  /** A child asked to keep an adult's contact secret (session 40), not a surprise party. */
  secrecy: ['keep it secret', 'keep it a secret', 'our secret', 'our little secret', 'not to tell', 'delete the messages', 'delete their messages', 'delete the chats'],
  /** Family traced after a war or a disaster (after review, session 45: not a family tree's "trace relatives in county cork"). */
  kin: [
    'red cross', 'red crescent', 'icrc', 'family links', 'missing', 'the war', 'the fighting', 'conflict', 'earthquake', 'tsunami', 'flood', 'floods', 'hurricane', 'disaster', 'refugee', 'refugees',
    'displaced', 'evacuated', 'shelling', 'bombing',
  ],
  /** A kidnapping for money (session 45: "my cousin got kidnapped in port au prince and they want a ransom"), not a novel's. */
  ransom: ['ransom', 'kidnappers', 'embassy', 'police', 'abductors'],
  /** Harm done in distress, not an itch: "I scratch my arms till they bleed when I'm stressed". */
  distress: ['stressed', 'stress', 'upset', 'anxious', 'anxiety', 'panic', 'punish', 'deserve it', 'numb', 'when things get bad', 'overwhelmed', 'hate myself'],
};
/**
 * Cues in their everyday sense, by the next words (EVERYDAY_NEXT's lists, read as a phrase's `{unless
 * NAME}` is; session 40; CUE_NOT_JUST_AFTER by the words before): a conversation whose only cue is "passed his driving test", "dead tired",
 * "dying to try" or "killed it" is not vetoed by its similarity (a grandad, a birthday and a test put
 * "my grandad passed his driving reassessment" near mourning).
 */
// Session 42: a bird ("mourning doves"), a vacuum ("evacuated tube solar panels"), a treat ("an overdose on sugar"), a star sign ("a cancer man").
export const CUE_UNLESS: Record<string, string> = { passed: 'object', died: 'figure', dead: 'lifeless', dying: 'longing', killed: 'feat', kill: 'feat', life: 'lifestyle', end: 'ending', lost: 'mislaid', mourning: 'bird', evacuated: 'vacuum', overdose: 'indulgence', cancer: 'astrology screening' };
/** The same by the words just before (EVERYDAY_JUST_BEFORE's runs): "my wife is a cancer" names a star sign, no cue. */
export const CUE_NOT_JUST_AFTER: Record<string, string> = { cancer: 'sign', life: 'living', dead: 'gadget' };
/** A theme, not an event: "a funeral-themed party", "disaster theme night"; after any phrase. */
export const THEMED = ['themed', 'theme', 'costume', 'costumes'];
/** The words after which a phrase has its everyday sense (`{unless NAME}`). */
export const EVERYDAY_NEXT: Record<string, string[]> = {
  /** Passing something: "passed the test", "passed me the salt", "passed out". */
  object: [
    'the', 'a', 'an', 'his', 'her', 'their', 'my', 'our', 'your', 'its', 'it', 'that', 'these', 'those', 'me', 'him', 'us', 'them',
    'out', 'up', 'through', 'by', 'over', 'all', 'both', 'with', 'exam', 'exams', 'test', 'tests', 'driving', 'maths', 'math', 'gas', 'wind',
    // Passing something on, said as often as a death ("my uncle passed on tuesday", "passed on the
    // 5th"): what is declined or handed down ("my partner passed on the flat", "grandma passed on
    // her recipe"), never a day or a date.
    ...['the', 'a', 'an', 'his', 'her', 'their', 'my', 'our', 'your', 'this', 'that'].flatMap((whose) => HANDED_ON.map((thing) => `on ${whose} ${thing}`)),
    'on it', 'on that', 'on them', 'on this one', 'on that one', 'on both',
  ],
  /** A bout in a ring or a cage: "my sister lost her fight on points". */
  bout: ['on points', 'by decision', 'by split decision', 'by knockout', 'by ko', 'by tko', 'by submission', 'to', 'against', 'at the', 'in round', 'in the first round', 'in the second round', 'in the third round', 'in the final round', 'in the ring', 'in the cage'],
  /** Arriving: "didn't make it to the party", "didn't make it home". */
  arrival: ['to', 'into', 'onto', 'on', 'back', 'home', 'out', 'past', 'for', 'up', 'there', 'here', 'the', 'in'],
  /** A contest: "my son beat me at chess", "he beat me up in smash bros again". */
  contest: ['at', 'in', 'to', 'on', 'again', 'every', 'by', 'up at', 'up in', 'up on', 'up again', 'up about', 'up over'],
  /** Urging or removing, not shoving: "pushed me to apply", "kicked me out". */
  urging: ['to', 'into', 'towards', 'toward', 'forward', 'out', 'off'],
  /** Getting out of bed or of the house: "my dad didn't get out much". */
  outing: ['of', 'much', 'often', 'enough', 'more', 'for', 'to', 'the', 'a', 'early', 'till', 'until'],
  /** Radiation in a lab or a plant: "we start radiation shielding in physics". */
  physics: ['shielding', 'exposure', 'levels', 'level', 'detector', 'detectors', 'badge', 'safety', 'protection', 'monitoring', 'physics', 'hardening', 'leak', 'leaks'],
  /** "took my breath away". */
  breath: ['breath', 'breath away', 'mind off', 'attention'],
  /** "hit me up". */
  contact: ['up'],
  /** A film's or a photographer's shooting: "after the shooting wrapped". */
  filming: ['wrapped', 'wraps', 'wrap', 'schedule', 'day', 'days', 'script', 'crew', 'session', 'sessions', 'finished', 'ended'],
  /** Fetching something for the speaker: "my friend grabbed me a coffee". */
  treat: ['a', 'an', 'some', 'one', 'two', 'coffee', 'lunch', 'dinner', 'breakfast', 'drink', 'drinks', 'food', 'snacks', 'tickets', 'seat', 'seats'],
  /** Dead as a thing or a figure of speech (a cue's everyday sense, CUE_UNLESS): "dead battery", "dead tired", "dead space". */
  lifeless: ['battery', 'batteries', 'phone', 'tired', 'space', 'end', 'ends', 'easy', 'serious', 'set', 'on time', 'ringer', 'zone', 'weight', 'heat', 'centre', 'center', 'poets', 'or alive', 'by daylight', 'cells', 'pixel', 'pixels', 'leaves', 'plant', 'plants'],
  /** A life's everyday senses by the next words (the "life" cue, session 41): "life insurance", "life hacks", "life of the party". */
  lifestyle: [
    'insurance', 'assurance', 'cover', 'hacks', 'hack', 'coach', 'coaches', 'coaching', 'balance', 'jacket', 'jackets', 'vest', 'vests', 'style', 'skills', 'cycle', 'span', 'savings', 'changing', 'goals',
    'lessons', 'lesson', 'story', 'size', 'sized', 'drawing', 'of the party', 'admin', 'stage', 'partner', 'science', 'sciences', 'expectancy of a', 'is good', 'is short', 'update', 'updates',
  ],
  /** An end that is a part or a time, not a wish (the "end" cue, session 41: "end with a toast", "end user", "the end of the day"). */
  ending: [
    'with', 'of', 'up', 'on', 'at', 'in', 'by', 'date', 'dates', 'user', 'users', 'result', 'results', 'table', 'tables', 'game', 'games', 'point', 'points', 'zone', 'product', 'products', 'credits',
    'season', 'scene', 'goal', 'to end', 'cap', 'caps', 'piece', 'pieces', 'grain', 'stop', 'stops', 'screen', 'times', 'time', 'sale', 'sales', 'line', 'lines', 'the call', 'the meeting', 'my shift', 'the day',
    'my contract', 'my subscription', 'my membership', 'the subscription', 'the contract', 'the lease', 'my lease', 'the relationship', 'things', 'it there', 'there',
  ],
  /** Weight, a thing or a game lost, not a person (the "lost" cue, session 41: "I lost my pregnancy weight slowly"). */
  mislaid: [
    'weight', 'pounds', 'kilos', 'kg', 'lbs', 'stone', 'inches', 'my pregnancy weight', 'the pregnancy weight', 'my baby weight', 'the baby weight', 'my keys', 'my wallet', 'my phone', 'my passport',
    'my luggage', 'my bag', 'my voice', 'my appetite', 'track', 'interest', 'signal', 'connection', 'the match', 'the game', 'the final', 'my password', 'my files', 'my photos', 'all my photos', 'my data',
  ],
  /** Longing, not dying: "dying to try", "dying for a coffee" (a cue's everyday sense). */
  longing: ['to', 'for', 'of laughter', 'laughing', 'of embarrassment'],
  /** Doing something well or stopping time: "killed it at the review", "kill time". */
  feat: ['it', 'time', 'the mood', 'the vibe'],
  /** "lost the baby weight", "lost our baby monitor". */
  baby: ['weight', 'fat', 'pounds', 'belly', 'bump', 'monitor', 'gate', 'blanket', 'bottle', 'shoes', 'sock', 'socks', 'clothes', 'wipes', 'sling', 'carrier'],
  place: [...LOST_AT, ...LOST_AT_ES],
  /** A figure of speech: "our cat died of boredom", "I nearly died laughing". */
  /** Swamped, not under water: "we nearly drowned in paperwork". */
  swamped: ['in', 'in the', 'in all the', 'in all this', 'in all that'].flatMap((within) =>
    ['paperwork', 'work', 'emails', 'email', 'admin', 'homework', 'bills', 'debt', 'laundry', 'orders', 'requests', 'messages', 'meetings', 'deadlines', 'forms', 'tickets', 'marking', 'sweat', 'sauce', 'gravy'].map((what) => `${within} ${what}`),
  ),
  /** A course or a test, not a crash lived through: "a car crash course for nervous drivers", "car crash test dummies"; a figure of speech: "a car crash interview". */
  lesson: [
    'course', 'courses', 'test', 'tests', 'testing', 'dummy', 'dummies', 'simulator', 'simulation', 'game', 'games', 'tv', 'television', 'interview', 'interviews',
    // A film's, and a thing called a crash (session 39): "the car crash scene in the new bond film", "a car crash of a presentation".
    'scene', 'scenes', 'stunt', 'stunts', 'sequence', 'of a', 'of an',
    // Ads for claims (session 40): "those car crash compensation ads on youtube".
    'compensation ads', 'compensation adverts', 'ads', 'adverts',
  ],
  /** Cancer's charities: "a charity 10k for cancer research" (a diagnosis names it otherwise too). */
  charity: ['research', 'charity', 'charities', 'awareness', 'fundraiser', 'fundraising', 'appeal', 'walk', 'run', 'race', 'relay', 'moonwalk'],
  /** A family's history, a risk: "heart failure runs in my family, garmin or apple watch?". */
  heredity: ['runs in', 'run in', 'running in', 'ran in'],
  /** Gone somewhere, not dead: "now she's gone to uni", "now he's gone quiet". */
  departure: ['to', 'into', 'onto', 'off', 'away', 'back', 'home', 'out', 'abroad', 'for', 'on', 'with', 'travelling', 'traveling', 'up', 'down', 'over', 'through', 'quiet', 'upstairs', 'downstairs', 'shopping'],
  /** Clumsy, not harm meant: "I keep hurting myself on the coffee table", "burning myself when I cook". */
  clumsy: ['on', 'at', 'in', 'while', 'when i', 'when lifting', 'when running', 'when training', 'lifting', 'running', 'playing', 'training', 'doing', 'during', 'cooking', 'ironing', 'by accident', 'accidentally', 'badly', 'skiing', 'climbing'],
  /** A player's passing or a mark: "my son's passing game", "dad's passing grade". */
  sporting: ['game', 'games', 'grade', 'grades', 'mark', 'marks', 'shot', 'shots', 'skill', 'skills', 'lane', 'accuracy', 'ability', 'range', 'stats', 'yards', 'play', 'plays', 'rate', 'score', 'comment', 'remark', 'glance', 'thought', 'fancy', 'phase'],
  /** A record or a band, not a burial (session 41: "Arcade Fire's Funeral album"; session 40: "are funeral for a friend still touring?"). */
  recording: ['album', 'albums', 'record', 'records', 'lp', 'ep', 'song', 'songs', 'track', 'tracks', 'vinyl', 'doom', 'for a friend', 'march', 'marches'],
  /** A bird or a butterfly (session 42): "where can I see mourning doves", "a mourning cloak". */
  bird: ['dove', 'doves', 'cloak', 'cloaks'],
  /** Emptied of air (session 42): "evacuated tube solar panels". */
  vacuum: ['tube', 'tubes', 'glass', 'chamber', 'chambers', 'flask', 'flasks'],
  /** Too much of a treat (session 42): "I overdosed on sugar at the christmas party". */
  indulgence: [
    'on sugar', 'on chocolate', 'on caffeine', 'on coffee', 'on sweets', 'on candy', 'on cake', 'on christmas', 'on netflix', 'on tv', 'on reality tv', 'on carbs', 'on cheese',
    'on sunshine', 'on cuteness', 'on nostalgia', 'on mince pies', 'on pizza', 'on junk food', 'on screen time',
  ],
  /** A policy, not a life (session 41): "how do I end my life insurance policy". */
  insurance: ['insurance', 'assurance', 'cover', 'policy', 'policies', 'plan'],
  /** Buried in play or in a gesture, not in a grave: "the kids buried him in the sand", "she buried her face in her hands". */
  sand: ['in the sand', 'in sand', 'under the sand', 'up to', 'in the snow', 'in snow', 'in leaves', 'in the leaves', 'in work', 'in paperwork', 'face', 'head', 'nose', 'hands', 'feet', 'toes', 'treasure'],
  /** A pain, not a knife: "a stabbing pain in my side"; the figure: "stabbed in the back". */
  pain: ['pain', 'pains', 'ache', 'aches', 'feeling', 'sensation', 'sensations', 'headache', 'headaches', 'motion', 'in the back'],
  /** Beaten in a game, not by a person: "the kids are being beaten at every match". */
  game: ['at', 'in the final', 'in the match', 'in the game', 'in the league', 'on points', 'every week', 'every match', 'every game', 'again at', '3', '2', '1', '4', '5'],
  /** A figure of speech: "held hostage by my toddler". */
  hostage: ['by my', 'by our', 'by the kids', 'by a toddler', 'by toddlers', 'by the cat', 'by the dog', 'to fortune'],
  /** An alcoholic drink, not a person: "an alcoholic drink", "an alcoholic punch". */
  beverage: ['drink', 'drinks', 'beverage', 'beverages', 'version', 'punch', 'cocktail', 'cocktails', 'option', 'options', 'content', 'ginger', 'cider', 'lemonade'],
  /** A story's, not a life's (session 40): "there is a suicide in the story", "her death in the film". */
  story: ['in the story', 'in the film', 'in the movie', 'in the book', 'in the novel', 'in the series', 'in the show', 'in the play', 'in the episode', 'in the game', 'in the plot', 'scene', 'scenes'],
  /** A routine diagnosis, not a serious one: "my mum's been diagnosed with high cholesterol, which cereals?". */
  routine: [
    'high cholesterol', 'high blood pressure', 'hypertension', 'low blood pressure', 'pre diabetes', 'prediabetes', 'hay fever', 'eczema', 'psoriasis', 'rosacea', 'acne',
    'anaemia', 'anemia', 'low iron', 'iron deficiency', 'vitamin d deficiency', 'a vitamin d deficiency', 'a cold', 'flu', 'the flu', 'a uti', 'tonsillitis', 'an ear infection',
    'conjunctivitis', 'pink eye', 'gout', 'ibs', 'acid reflux', 'reflux', 'lactose intolerance', 'a sprain', 'tennis elbow', 'plantar fasciitis', 'shin splints',
    'adhd', 'dyslexia', 'asthma', 'sleep apnea', 'sleep apnoea', 'insomnia', 'tinnitus', 'migraine', 'migraines', 'myopia', 'astigmatism', 'short sight', 'a lazy eye',
  ],
  /** A warning, not the thing: "the tornado warning is gone". */
  forecast: ['warning', 'warnings', 'watch', 'watches', 'alert', 'alerts', 'siren', 'sirens', 'drill', 'drills', 'kit', 'kits', 'season', 'forecast'],
  /** A home lost as a purchase: "we lost the house sale", "lost the house to another buyer". */
  purchase: ['sale', 'purchase', 'bid', 'bids', 'auction', 'deposit', 'viewing', 'mortgage', 'chain', 'to another', 'to a higher', 'to a cash', 'to someone else'],
  figure: ['of boredom', 'of embarrassment', 'of shame', 'of laughter', 'laughing', 'inside', 'a little'],
  /** The star sign: "a cancer zodiac sign", "cancer season" (not "cancer signs", a symptom). */
  astrology: [
    'zodiac', 'sign', 'star', 'horoscope', 'season', 'sun', 'moon', 'rising', 'traits', 'compatibility', 'compatible', 'man', 'woman', 'men', 'women', 'personality',
    ...STAR_SIGNS.flatMap((sign) => [`and ${sign}`, `and a ${sign}`, `and an ${sign}`, `with ${sign}`, `with a ${sign}`, `with an ${sign}`]),
  ],
  /** Microsoft's: "I have MS Teams". */
  software: ['word', 'office', 'teams', 'excel', 'access', 'paint', 'dos', 'sql', 'outlook', 'edge', 'project', 'visio', 'onenote', 'powerpoint', 'publisher', 'store', 'account', 'surface', 'rewards', 'authenticator', '365'],
  /** A film, a band, a car's doors, a drill or a poker card: "Suicide Squad", "suicide doors", "suicide sprints", "the suicide king". */
  named: [
    'squad', 'squads', 'doors', 'door', 'king', 'kings', 'squeeze', 'sprint', 'sprints', 'runs', 'drill', 'drills', 'silence',
    // Songs and records (session 45: M*A*S*H's theme "Suicide Is Painless"; INXS's "Suicide Blonde", "Suicide Solution", "Suicide Season").
    'is painless', 'blonde', 'solution', 'season',
  ],
  /** A risk or a screening, not a case (session 45: "sunscreen recs to lower skin cancer risk", "cancer screening"). */
  screening: ['risk', 'risks', 'screening', 'screenings', 'prevention'],
  /** A policy's list, not a diagnosis (session 45: "pays a lump sum if you're diagnosed with a listed condition such as cancer"). */
  policy: ['a listed', 'a specified', 'a covered', 'a qualifying', 'a critical illness', 'one of the', 'any of the'],
  /** The funeral trade as a job (session 45: "what to wear to a funeral director job interview"). */
  trade: ['director job', 'director jobs', 'directors jobs', 'director interview', 'director career', 'director course', 'director training', 'director apprenticeship', 'industry', 'home job', 'home jobs'],
  /** "a stroke of luck"; "an abuse of power". */
  luck: ['of'],
  /** Scolded, or beaten in a game: "don't beat me up about it", "beat me up in smash". */
  scolding: ['about', 'over', 'at', 'in', 'on', 'again', 'for it', 'for that', 'for this'],
  /** "mugged off" (made a fool of). */
  fooled: ['off', 'me off', 'him off', 'her off', 'them off', 'us off', 'you off'],
  /** "se me murió el móvil". */
  device: DEVICES.flatMap((device) => [`el ${device}`, `la ${device}`, `mi ${device}`, `das ${device}`, `mein ${device}`]),
  /** A Romanian device, named after the verb (after review, session 45: "mi-a murit telefonul"). */
  aparat: ['telefonul', 'telefon', 'bateria', 'laptopul', 'calculatorul', 'mobilul', 'acumulatorul', 'ecranul', 'routerul', 'tableta', 'masina', 'mașina'],
  /**
   * A hand of cards, not a hand lost (after review, session 45: "lost a hand of poker"). Only words of
   * cards: "playing" or "to a" alone also begin "lost a hand playing with fireworks", "to a table saw".
   */
  cards: [
    'of poker', 'of cards', 'of blackjack', 'of bridge', 'at poker', 'at cards', 'at blackjack', 'in poker', 'in blackjack',
    'playing poker', 'playing cards', 'playing blackjack', 'playing bridge', 'with pocket', 'on the river', 'on the turn',
    'to a flush', 'to a straight', 'to a full house', 'to a royal flush', 'to a better hand', 'to a bluff',
  ],
  /** A thumb drive (after review, session 45: "i lost a thumb drive with my photos"). */
  drive: ['drive', 'drives', 'stick', 'sticks'],
};

/**
 * Getting ready for a harm, not living through one (a first aid course before a baby arrives, storm
 * shutters, an emergency kit, sunscreen, insurance), reading the stars (a Cancer's birthday gift) or dressing
 * up (a funeral-themed party): the similarity of bereavement, accident, disaster and serious
 * diagnosis is cleared by them, their phrases still veto ("the hurricane destroyed our shutters").
 */
const NOT_LIVED = [
  'first aid course', 'first aid courses', 'first aid class', 'first aid classes', 'first aid training', 'learn first aid', 'learning first aid', 'first aid kit',
  'emergency kit', 'survival kit', 'go bag', 'preparedness', 'hurricane shutters', 'storm shutters', 'before hurricane season', 'sunscreen', 'sunblock', 'spf',
  'zodiac', 'star sign', 'horoscope', 'astrology', 'tarot', 'themed', 'fancy dress',
  // A lesson or a test (session 38): "a car crash course", "crash test ratings", "avalanche safety course".
  'crash course', 'crash courses', 'crash test', 'crash tests', 'safety course', 'safety courses', 'safety training', 'defensive driving', 'avalanche course', 'avalanche safety', 'avalanche training',
  // Insurance against a harm (session 41: "flood insurance for a new house in a flood zone", "pet insurance ... cover cancer treatment").
  'flood insurance', 'flood zone', 'flood zones', 'flood risk', 'flood plain', 'floodplain', 'earthquake insurance', 'hurricane insurance', 'wildfire insurance', 'storm insurance',
  'home insurance', 'pet insurance', 'travel insurance', 'critical illness cover', 'insurance quote', 'insurance quotes', 'cover cancer', 'covers cancer',
  // A person who is a Cancer (session 40: "my girlfriend is a cancer"), as "cancer" is guarded.
  ...EVERYDAY_JUST_BEFORE.sign!.map((run) => `${run} cancer`),
  // The signs but Cancer and Leo (a disease, a name): "is a cancer compatible with a scorpio?".
  'aries', 'taurus', 'gemini', 'virgo', 'libra', 'scorpio', 'sagittarius', 'capricorn', 'aquarius', 'pisces',
  // A person called by the sign and a sign's stone (session 42: "gift for a cancer man").
  'cancer man', 'cancer men', 'cancer woman', 'cancer women', 'birthstone',
];
/**
 * A story's deaths and disasters ("who dies at the end of Titanic?", "a disaster movie"): clears the
 * similarity of bereavement, accident and disaster; their phrases still veto.
 */
const FICTION = [
  'the movie', 'the film', 'the book', 'the novel', 'the series', 'the show', 'the ending',
  // An episode named as one (after review, session 45: not "since the episode at work").
  'the episode where', 'the episode when', 'last episode', 'latest episode', 'final episode', 'first episode', 'next episode', 'pilot episode', 'season finale', 'spoiler', 'spoilers', 'never watched', 'movie night', 'disaster movie', 'disaster movies',
  // A scene and where it was shot (session 39: "where was the car crash scene in the new bond film filmed?").
  'scene in the', 'scene in a', 'scene in that', 'scene in this', 'film scene', 'movie scene', 'filming location', 'filming locations', 'was it filmed', 'was it shot', 'film shot', 'movie shot',
  // A story not finished, a film for a child's age (session 45: "who killed laura palmer, never finished twin peaks", "what age should kids watch bambi");
  // a story not seen, said with the story (after review: not "haven't seen the point of anything", "never seen my dad cry like that").
  'never finished', ...['never seen', 'haven t seen', 'havent seen', 'not seen'].flatMap((seen) => ['the film', 'the movie', 'the show', 'the series', 'the episode', 'the play'].map((story) => `${seen} ${story}`)),
  'what age should', 'age rating', 'ok for kids', 'suitable for kids',
  // Session 46: a death written out of a story, a scene judged for a child ("why did they kill off the dad in the lion king", "too scary for a 4 year old").
  'too scary', 'kill off', 'kills off', 'killed off', 'killing off',
  // Batch 13: a war film's violence judged for a teenager, a film's montage, a game's character and its downloadable content.
  'too violent', 'too graphic', 'the montage where', 'my character', 'dlc',
  ...EVERYDAY_WITH.study!.filter((run) => run.includes(' set in') || run.startsWith('horror')),
];
/** A band's tours and records (session 41: "are funeral for a friend still touring?"): clears bereavement's similarity; "funeral" before "album", "for a friend" is guarded as a phrase. */
const BAND = ['death metal', 'black metal', 'doom metal', 'metal albums', 'metal band', 'metal bands', 'still touring', 'on tour', 'tour dates', 'reunion tour', 'reunited for', 'the band', 'their album', 'their albums', 'new album', 'setlist', 'setlists', 'songkick'];
/** An event called a car crash ("the presentation was a total car crash"): clears the similarity of accident and bereavement, as the phrase is guarded. */
const FIGURATIVE_CRASH = EVERYDAY_JUST_BEFORE.figure!.map((run) => `${run} car crash`);
/** A field someone works in ("a nurse who works in palliative care"): clears the similarity of bereavement and serious diagnosis, as the phrase is guarded. */
const WORK_FIELD = EVERYDAY_JUST_BEFORE.work!.flatMap((run) => ['palliative', 'oncology', 'hospice'].map((field) => `${run} ${field}`));
/** Storm damage to a garden, not a home lost ("the storm knocked our fence down"): clears disaster's similarity. */
const MINOR_DAMAGE = ['fence', 'fences', 'fence panel', 'fence panels', 'garden shed', 'gutter', 'gutters', 'roof tiles', 'trampoline', 'garden furniture', 'greenhouse', 'satellite dish', 'wheelie bin'];
/** A storm forecast, not lived through (session 42: "a violent storm is forecast for friday, should we cancel the barbecue?"): clears disaster's similarity. */
const FORECAST = ['is forecast', 'are forecast', 'forecast for', 'forecast to', 'weather forecast', 'the forecast', 'yellow warning', 'amber warning', 'met office'];
/** History homework ("what caused the great fire of London?"): clears the similarity of disaster and accident, as getting ready does. */
const HISTORY = [
  'great fire of', 'in history', 'the history of', 'historical', 'historians', 'history lesson', 'history class', 'history homework', 'history essay', 'gcse', 'a level history',
  // A battle or a world war of the books: "how many died at the battle of the somme?".
  'battle of', 'world war', 'first world war', 'second world war', 'ww1', 'ww2', 'wwi', 'wwii',
  // The war dead remembered (session 41: "what does the red poppy mean on Remembrance Day?").
  'remembrance day', 'remembrance sunday', 'armistice day', 'anzac day', 'veterans day', 'red poppy', 'poppy appeal',
  // Kings, queens and centuries (session 45: "how did henry viii's wives die").
  'tudor', 'tudors', 'henry viii', 'medieval', 'centuries',
  // Session 46 (batch 13: "what did queen victoria do after albert died", "was pompeii destroyed in one day").
  'queen victoria', 'pompeii',
  // A century of the books, not "nearly a century" of a life (after review, session 45).
  ...['16th', '17th', '18th', '19th', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth'].map((nth) => `${nth} century`), ...SCHOOLWORK,
];
/** Feasts of the dead (session 45: "history of halloween ... when people believed the dead walked"): clears bereavement's similarity. */
const FEASTS = ['halloween', 'samhain', 'day of the dead', 'dia de los muertos', 'día de los muertos', 'all souls', 'trick or treat', 'trick or treating'];
/**
 * Routine care of a pet or a person (session 45: "should i get my rabbit vaccinated ... often fatal in rabbits", "how vaccines work ...
 * diseases that killed millions"): clears every topic's similarity, self-harm's too; a death or a diagnosis named is a phrase.
 */
const ROUTINE_CARE = ['vaccinated', 'vaccinate', 'vaccination', 'vaccinations', 'vaccine', 'vaccines', 'booster', 'check up', 'checkup', 'annual check', 'flea treatment', 'worming', 'neutered', 'spayed'];
/**
 * Something handed down or declined after "passed on" ("my grandma passed on her love of
 * gardening"): the phrase is guarded (EVERYDAY_NEXT.object), and this clears bereavement's similarity,
 * which a grandma, "passed" and a love put near mourning.
 */
const PASSED_ON = ['passed on', 'passed down', 'handed down', 'handed on'].flatMap((passed) =>
  ['her', 'his', 'their', 'the', 'a', 'my', 'our'].flatMap((whose) => HANDED_ON.map((thing) => `${passed} ${whose} ${thing}`)),
);
/**
 * Routine operations ("recovering from knee surgery, best ice pack to buy?"): near a serious
 * diagnosis by "surgery" and recovery, and not one. Clears that similarity only: a named disease is a phrase.
 */
const ROUTINE_OPERATIONS = [
  'knee surgery', 'knee replacement', 'hip replacement', 'acl surgery', 'acl reconstruction', 'meniscus', 'wisdom teeth', 'wisdom tooth', 'cataract', 'bunion',
  'hernia repair', 'carpal tunnel', 'tonsillectomy', 'tonsils out', 'vasectomy', 'laser eye', 'nose job',
];
/**
 * Routine diagnoses ("my doctor diagnosed me with high blood pressure, best home monitor?", "my son
 * was diagnosed with ADHD"): near a serious diagnosis by "diagnosed" and a doctor, and not one. Clears that
 * similarity only, and "diagnosed with" is guarded by the same kind of words (EVERYDAY_NEXT.routine);
 * a named disease is a phrase.
 */
const ROUTINE_DIAGNOSES = [
  'high cholesterol', 'high blood pressure', 'hypertension', 'prediabetes', 'pre diabetes', 'prediabetic', 'pre diabetic', 'adhd', 'dyslexia', 'dyslexic',
  'short sighted', 'long sighted', 'hay fever', 'eczema', 'ear infection', 'ear infections', 'iron deficiency', 'vitamin d deficiency', 'lactose intolerance', 'lactose intolerant', 'shin splints', 'tennis elbow', 'plantar fasciitis',
];

/** The days first lived without someone who died ("first fathers day without him"). */
const OCCASIONS = ['christmas', 'xmas', 'birthday', 'fathers day', 'father s day', 'mothers day', 'mother s day', 'anniversary', 'thanksgiving', 'easter'];

/** What a child (or a pet) swallows that sends them to hospital: "swallowed a button battery", "drank some bleach". */
const SWALLOWED = ['swallowed', 'drank', 'drunk', 'ate', 'eaten'].flatMap((verb) =>
  [
    'a button battery', 'button batteries', 'a battery', 'a magnet', 'magnets', 'bleach', 'some bleach', 'a dishwasher tablet', 'dishwasher tablets', 'a laundry pod',
    'laundry pods', 'a washing pod', 'washing pods', 'detergent', 'antifreeze', 'weed killer', 'rat poison', 'slug pellets', 'drain cleaner', 'lamp oil', 'white spirit',
  ].map((thing) => `${verb} ${thing}`),
);

/** What one does to take an overdose: "took a bunch of pills", "swallowed a handful of tablets". */
const OVERDOSE = ['took', 'taken', 'swallowed'].flatMap((verb) =>
  ['a bunch of', 'a handful of', 'a whole bottle of', 'a whole packet of', 'a whole box of', 'too many', 'way too many', 'too many of my', 'way too many of my', 'a lot of', 'a lot more of my', 'more of my', 'loads of'].flatMap((amount) =>
    ['pills', 'tablets', 'painkillers', 'sleeping pills', 'sleeping tablets', 'paracetamol', 'meds', 'medication', 'antidepressants'].map((pills) => `${verb} ${amount} ${pills}`),
  ),
);

export const SENSITIVE_TOPICS: SensitiveTopic[] = [
  {
    name: 'bereavement',
    description: 'death of a loved one or a pet, grief, mourning, funeral, passed away, died, condolences, bereavement, grieving widow',
    phrases: [
      'passed away', '{not with study} {not just after disc} funeral {unless recording trade}', 'bereavement', 'bereaved', 'condolences', 'grieving', '{not with study} mourning {unless bird}', 'put to sleep', 'euthanized', 'miscarriage', 'stillborn',
      'no longer with us', 'rest in peace', 'in loving memory', 'memorial service', 'obituary', 'cremation', 'cremated', 'widowed', 'stillbirth', 'born sleeping',
      // A death said of a relative, a friend or a pet, or of anyone with the speaker or the listener in the conversation (session 46: "since jake's death
      // i can't sleep"), not a film's: "is mufasa's death in the lion king too scary for a 4 year old?".
      "{someone} 's death {unless story}", "'s death {unless story} {if personal}", 'death of my',
      // Batch 13: "my dad's been dead a year today", "we had the wake at his local" (not "in the wake of", "his wake-up call").
      '{someone} been dead {unless lifeless}', 'had the wake', 'at the wake', 'to the wake', 'after the wake', 'his wake {unless contact}', 'her wake {unless contact}', 'death of our', 'lost our baby {unless baby}', 'lost the baby {unless baby}', 'miscarried', 'miscarry',
      'lost my {relative} {unless place}', 'lost our {relative} {unless place}', 'lost {named relative} {unless place}', 'late {relative}',
      'lost his {relative} {unless place}', 'lost her {relative} {unless place}', 'lost their {relative} {unless place}',
      'loss of my {relative}', 'loss of our {relative}', 'loss of {named relative}', 'loss of {pet}',
      'rip my {relative}', 'rip our {relative}', 'rip {named relative}', 'rip {pet}',
      // A person or pet, then what happened to them: "my uncle passed on tuesday", "grandad didn't make it".
      '{someone} died {unless figure}', '{someone} passed {unless object}', "{someone} didn't make it {unless arrival}", '{someone} didnt make it {unless arrival}',
      '{someone} did not make it {unless arrival}', '{someone} killed {unless object}', '{pet animal} put down {unless object}',
      'goodbye to {pet}', 'put {pet} down', 'crossed the rainbow bridge', 'cross the rainbow bridge',
      // A killing: "my friend was murdered", "shot dead"; not "we got murdered in the game".
      '{someone} murdered {unless object}', 'was murdered', 'were murdered', 'been murdered', 'shot dead', 'stabbed to death', 'beaten to death', 'shot and killed',
      'lost his battle with', 'lost her battle with', 'lost their battle with', 'lost his fight with', 'lost her fight with', 'lost their fight with',
      // The same after a person, without the illness: "my aunt lost her fight last night" (not a bout: "my sister lost her fight on points").
      ...['his', 'her', 'their'].flatMap((whose) => [`{someone} lost ${whose} fight {unless bout}`, `{someone} lost ${whose} battle {unless bout}`]),
      'after a death', 'following a death', 'death in the family', 'death in our family', 'death in my family',
      // What is said to the bereaved (an assistant's answer says it too).
      'sorry for your loss', 'sorry for the loss', 'death certificate', '{not with alive} eulogy', 'sorry about your {relative}',
      // Buried, said gently (session 38): "my uncle was laid to rest yesterday"; not rumours laid to rest.
      '{someone} laid to rest', ...['laid', 'lay', 'laying'].flatMap((laid) => ['him', 'her', 'them', 'mum', 'mom', 'dad'].map((whom) => `${laid} ${whom} to rest`)),
      // A pet's end at the vet's: "we had to let our old boy go, the vet came to the house" (not an employee let go).
      ...['him', 'her', 'our old boy', 'our old girl', 'my old boy', 'my old girl', 'our boy', 'our girl'].map((whom) => `had to let ${whom} go {if farewell}`),
      // The vet's word that the end has come (session 40: "the vet thinks it's time for our old girl").
      ...['our old boy', 'our old girl', 'my old boy', 'my old girl'].map((whom) => `time for ${whom} {if farewell}`), ...['him', 'her', 'them'].map((whom) => `time to let ${whom} go {if farewell}`),
      // Someone's ashes ("going to scatter my wife's ashes"), not the cricket's.
      '{someone} s ashes', ...['scatter', 'scattered', 'scattering', 'spread', 'spreading', 'bury', 'buried', 'collect', 'collected'].flatMap((verb) => ['his', 'her', 'their'].map((whose) => `${verb} ${whose} ashes`)),
      // A funeral's people and places, said without the word: "asked me to be a pall bearer".
      'pall bearer', 'pall bearers', 'pallbearer', 'pallbearers', 'headstone', 'graveside', '{not with wrestling} undertaker', 'undertakers', '{someone} drowned',
      // The first occasion without someone: "first fathers day without him", "our first christmas without mum".
      ...OCCASIONS.flatMap((occasion) => ['him', 'her', '{named relative}', 'my {relative}', 'our {relative}'].map((whom) => `{first} ${occasion} without ${whom}`)),
      // A death called a passing or a going (session 39): "the anniversary of dad's passing", "clearing out mum's flat now she's gone"
      // (not "my son's passing game", "now she's gone to uni", "now he's gone quiet").
      // A pregnancy lost or ended, said without "miscarriage" (session 41: "the pregnancy didn't make it", "we ended the pregnancy for medical reasons at 20 weeks").
      'pregnancy didn t make it', 'pregnancy didnt make it', 'pregnancy did not make it', 'pregnancy loss', 'baby loss', 'ectopic pregnancy', 'chemical pregnancy', 'molar pregnancy', 'blighted ovum',
      'termination for medical reasons', 'tfmr', 'medical termination', 'no heartbeat {if pregnancy}',
      // ("lost my pregnancy weight" is served.)
      ...['lost', 'losing', 'ended', 'end', 'ending', 'terminate', 'terminated', 'terminating'].flatMap((ended) => ['the', 'my', 'our'].map((whose) => `${ended} ${whose} pregnancy {unless baby}`)),
      // A burial said of a person or pet (session 41: "a rainbow bridge poem for my budgie, we buried him today"), not a game in the sand nor a face in the hands.
      ...['buried', 'bury', 'burying'].flatMap((bury) => ['him', 'her', 'my {relative}', 'our {relative}', '{pet}'].map((whom) => `${bury} ${whom} {unless sand}`)),
      // Session 42: a crematorium ("how long does it take to get a cat's ashes back from the crematorium"), a child or a pregnancy "we lost"
      // ("the baby we lost in march would have been here"; not "the baby weight I lost"), a dead person's things one cannot face clearing.
      'crematorium', 'crematoriums', 'crematoria',
      // (Keyed by the person: "we" and "i" are in most bodies.)
      ...SOMEONE.filter((who) => !PET_ANIMALS.includes(who)).flatMap((who) => [`${who} we lost {unless place}`, `${who} i lost {unless place}`]),
      ...['clear out', 'clearing out', 'sort out', 'sorting out', 'go through', 'going through', 'pack up', 'packing up', 'give away', 'giving away', 'get rid of', 'throw away', 'touch', 'empty'].flatMap((clear) =>
        ['his', 'her'].flatMap((whose) => ['wardrobe', 'clothes', 'things', 'belongings', 'room', 'stuff', 'side of the wardrobe'].map((things) => `bring myself to ${clear} ${whose} ${things}`)),
      ),
      '{someone} s passing {unless sporting}', 'passing of my {relative}', 'passing of our {relative}', 'passing of {named relative}', 'passing of {pet}',
      ...['now', 'since', 'now that'].flatMap((when) => ['she s gone', 'he s gone', 'she is gone', 'he is gone'].map((gone) => `${when} ${gone} {unless departure}`)),
      // Session 45: a death in sleep ("he died in his sleep last night"), an inquest and the coroner's people, what is made to remember
      // someone ("a poem for my dog's memorial stone", "a memorial slideshow"; not the Lincoln Memorial).
      ...['died', 'passed', 'passed away', 'slipped away', 'went'].flatMap((died) => ['his', 'her', 'their'].map((whose) => `${died} in ${whose} sleep`)),
      'inquest {unless story}', 'inquests', 'coroner s officer', 'coroners officer', 'coroner s court', 'coroners court', 'coroners courts',
      ...['stone', 'stones', 'slideshow', 'page', 'video', 'bench', 'plaque', 'tattoo', 'garden', 'candle'].map((what) => `memorial ${what}`), 'pet memorial', 'rainbow bridge poem', 'rainbow bridge poems',
    ],
    // A goodbye to a relative is a death as often as a trip ("it's been a year since we said goodbye
    // to grandma", "said goodbye to mum at the airport"): only with a word of missing someone.
    ambiguous: ['goodbye to {named relative} {unless place}', 'goodbye to my {relative} {unless place}', 'goodbye to our {relative} {unless place}'],
    confirmedBy: ['since', 'miss', 'missing', 'grief', 'grieve', 'hospice', 'ashes', 'grave', 'heaven', 'forever'],
    otherLanguages: {
      es: [
        'aborto espontáneo', 'perdí el bebé', 'perdí al bebé', 'perdimos al bebé', 'falleció', 'fallecido', 'fallecida', 'fallecimiento', '{not after device} murió {unless device}', 'velorio', 'entierro', '{not with study} {not just after disc} funeral {unless recording trade}', 'luto', 'pésame', 'descanse en paz',
        ...['perder a mi', 'perdí a mi', 'perdi a mi', 'perdió a su', 'perdimos a nuestro', 'perdimos a nuestra', 'pérdida de mi', 'muerte de mi'].flatMap((lost) => RELATIVES_ES.map((relative) => `${lost} ${relative} {unless place}`)),
      ],
      de: [
        ...['meinen', 'unseren'].flatMap((whose) => ['vater', 'mann', 'sohn', 'bruder', 'opa', 'großvater', 'grossvater', 'onkel', 'freund', 'papa'].map((relative) => `${whose} ${relative} verloren`)),
        ...['meine', 'unsere'].flatMap((whose) => ['mutter', 'frau', 'tochter', 'schwester', 'oma', 'großmutter', 'grossmutter', 'tante', 'freundin', 'mama'].map((relative) => `${whose} ${relative} verloren`)),
        '{not after device} gestorben', 'fehlgeburt', 'totgeburt', 'das baby verloren', 'unser baby verloren', 'verstorben', 'verstorbene', 'verstorbenen', 'verstarb', 'beerdigung', 'beisetzung', 'trauerfeier', 'trauer', 'beileid', 'ruhe in frieden'],
      fr: [
        'fausse couche', 'perdu le bébé', 'perdu notre bébé', 'perdu mon bébé', 'décédé', 'décédée', 'décès', 'obsèques', 'enterrement', 'funérailles', 'deuil', 'condoléances', 'repose en paix', 'père est mort', 'mère est morte', 'mari est mort',
        'femme est morte', 'fils est mort', 'fille est morte', 'frère est mort', 'sœur est morte', 'soeur est morte', 'grand-père est mort', 'grand-mère est morte',
        'oncle est mort', 'tante est morte', 'ami est mort', 'amie est morte', 'chien est mort', 'chienne est morte', 'chat est mort', 'chatte est morte',
        ...['perdu', 'mort de', 'perte de'].flatMap((lost) => ['mon père', 'ma mère', 'mon mari', 'ma femme', 'mon fils', 'ma fille', 'mon frère', 'ma sœur', 'ma soeur', 'mon grand-père', 'ma grand-mère'].map((relative) => `${lost} ${relative}`)),
      ],
      it: [
        'aborto spontaneo', 'perso il bambino', 'perso il mio bambino', 'perso la gravidanza', 'deceduto', 'deceduta', 'decesso', 'funerale', 'lutto', 'condoglianze', 'riposa in pace', 'padre è morto', 'madre è morta', 'marito è morto', 'moglie è morta', 'figlio è morto', 'figlia è morta', 'fratello è morto', 'sorella è morta', 'nonno è morto', 'nonna è morta',
        ...['perso', 'morte di'].flatMap((lost) => ['mio padre', 'mia madre', 'mio marito', 'mia moglie', 'mio figlio', 'mia figlia', 'mio fratello', 'mia sorella', 'mio nonno', 'mia nonna'].map((relative) => `${lost} ${relative}`)),
        // A pet's death and a person or pet run over (session 45: "il mio cane è stato investito ed è morto"), as in French.
        'cane è morto', 'cagnolino è morto', 'cagna è morta', 'cagnolina è morta', 'gatto è morto', 'gatta è morta', 'coniglio è morto', 'cavallo è morto',
        ...['cane', 'gatto', 'gatta', 'cagnolino'].map((pet) => `${pet} è stato investito`), 'investito da una macchina', 'investita da una macchina', 'investito da un auto', 'investita da un auto',
      ],
      pt: [
        'aborto espontâneo', 'perdi o bebê', 'perdi o bebé', 'perdi o meu bebê', 'perdemos o bebê', 'faleceu', 'falecido', 'falecida', 'falecimento', 'velório', 'enterro', '{not with study} {not just after disc} funeral {unless recording trade}', 'luto', 'pêsames', 'descanse em paz', 'pai morreu', 'mãe morreu', 'marido morreu', 'esposa morreu', 'filho morreu', 'filha morreu', 'irmão morreu', 'irmã morreu', 'avô morreu', 'avó morreu',
        ...['perdi o meu', 'perdi meu', 'perder o meu', 'morte do meu'].flatMap((lost) => ['pai', 'marido', 'filho', 'irmão', 'avô'].map((relative) => `${lost} ${relative}`)),
        ...['perdi a minha', 'perdi minha', 'perder a minha', 'morte da minha'].flatMap((lost) => ['mãe', 'esposa', 'mulher', 'filha', 'irmã', 'avó'].map((relative) => `${lost} ${relative}`)),
      ],
      // Dutch (session 39, with batch 4's "mijn moeder is gisteren overleden"): a pet "ingeslapen" with the vet or grief ("inslapen" is falling asleep in Flemish).
      nl: [
        'miskraam', 'doodgeboren', 'overleden', 'overlijden', 'overlijdensakte', 'begrafenis', 'crematie', 'uitvaart', 'uitvaartondernemer', 'rouw', 'rouwen', 'gecondoleerd', 'condoleances', 'rust zacht', 'laten inslapen',
        '{not after device} gestorven', 'ingeslapen {if afscheid}',
        ...['mijn', 'onze'].flatMap((whose) => ['vader', 'moeder', 'man', 'vrouw', 'zoon', 'dochter', 'broer', 'zus', 'opa', 'oma', 'oom', 'tante', 'papa', 'mama'].flatMap((relative) => [`${whose} ${relative} verloren`, `${whose} ${relative} is dood`])),
      ],
      // Polish and Turkish (session 41: "mój syn zginął w wypadku", "depremde ailemi kaybettim"); Turkish "kaybettim" alone is a lost phone too, so after a relative.
      pl: [
        'zmarł', 'zmarła', 'zmarli', 'zginął', 'zginęła', 'zginęli', 'nie żyje', 'pogrzeb', 'pogrzebie', 'żałoba', 'żałobie', 'żałoby', 'kondolencje', 'wyrazy współczucia', 'spoczywaj w pokoju',
        'poronienie', 'poroniłam',
      ],
      tr: [
        // Not "öldü" alone: without its accents it is "oldu" (it happened).
        'vefat', 'hayatını kaybetti', 'hayatını kaybeden', 'öldürüldü', ...['annem', 'babam', 'eşim', 'oğlum', 'kızım', 'kardeşim', 'dedem', 'ninem', 'köpeğim', 'kedim'].map((who) => `${who} öldü`), 'cenaze', 'cenazesi', 'cenazesine', 'taziye', 'taziyeler', 'başın sağ olsun', 'başınız sağ olsun', 'nur içinde yatsın', 'düşük yaptım',
        ...['ailemi', 'annemi', 'babamı', 'eşimi', 'oğlumu', 'kızımı', 'kardeşimi', 'abimi', 'ablamı', 'dedemi', 'ninemi', 'anneannemi', 'babaannemi', 'bebeğimi', 'köpeğimi', 'kedimi'].map((whom) => `${whom} kaybettim`),
      ],
      // Session 45. Swedish "dog" (died) is an English word: only after a relative or a pet.
      sv: [
        ...['mamma', 'pappa', 'man', 'fru', 'mormor', 'farmor', 'morfar', 'farfar', 'bror', 'syster', 'son', 'dotter', 'hund', 'katt'].map((who) => `min ${who} dog`),
        'begravning', 'begravningen', 'begravningsbyrå', 'avled', 'avliden', 'dödsfall', 'beklagar sorgen', 'vila i frid', 'missfall',
      ],
      // Russian "умер" of a phone too ("телефон умер"): not after a device.
      ru: ['{not after device} умер', '{not after device} умерла', 'умерли', 'скончался', 'скончалась', 'погиб', 'погибла', 'погибли', 'похороны', 'похорон', 'похоронили', 'соболезнования', 'соболезную', 'выкидыш'],
      // "mi-a murit telefonul" is a phone that died (after review).
      ro: ['murit {unless aparat}', 'decedat', 'decedată', 'înmormântare', 'înmormântarea', 'pompe funebre', 'condoleanțe', 'condoleante', 'dumnezeu să o odihnească', 'dumnezeu să-l odihnească', 'avort spontan'],
      id: ['meninggal', 'meninggal dunia', 'wafat', 'pemakaman', 'akta kematian', 'turut berduka', 'berduka cita', 'keguguran'],
      // Czech "umřel" of a phone too.
      cs: ['{not after device} umřel', '{not after device} umřela', 'zemřel', 'zemřela', 'zemřeli', 'pohřeb', 'pohřbu', 'upřímnou soustrast', 'potrat'],
      // Tagalog "namatay" is said of a phone as often: only of a relative or a pet.
      tl: [...['lola', 'lolo', 'nanay', 'tatay', 'ina', 'ama', 'kapatid', 'asawa', 'anak', 'aso', 'pusa'].map((who) => `namatay ang ${who}`), 'pumanaw', 'nakikiramay', 'pakikiramay', 'pakikidalamhati'],
      // Passed away said of a relative, not of time ("saal kaise guzar gaya"); not "nahi rahe" ("hum wahan nahi rahe": we did not stay there), after review.
      hi: [...['papa', 'papaji', 'pitaji', 'mummy', 'mummyji', 'maa', 'mataji', 'dadi', 'dada', 'dadaji', 'nani', 'nana', 'nanaji', 'bhai', 'bhaiya', 'didi', 'behen', 'chacha', 'chachi', 'mama', 'mami', 'beta', 'beti', 'pati', 'patni']
        .flatMap((relative) => ['', ' ji'].flatMap((ji) => ['guzar gaye', 'guzar gayi', 'guzar gaya'].map((passed) => `${relative}${ji} ${passed}`))), 'antim sanskar', 'shraddhanjali'],
    },
    cues: [
      'died', 'die', 'dies', 'dead', 'death', 'deceased', 'passed', 'passing', 'lost', 'loss', 'losing', 'late', 'killed', 'gone',
      'grief', 'grieve', 'grieving', 'mourn', 'mourning', 'funeral', 'buried', 'bury', 'burial', 'ashes', 'memorial', 'widow', 'widower',
      'condolences', 'sympathy', 'rip', 'peace', 'peacefully', 'heaven', 'goodbye', 'euthanasia', 'euthanized',
    ],
    // A mock eulogy for someone alive (session 42) clears it as the phrase is guarded.
    clears: [...NOT_LIVED, ...PASSED_ON, ...FICTION, ...FIGURATIVE_CRASH, ...WORK_FIELD, ...BAND, ...HISTORY, ...EVERYDAY_WITH.alive!, ...FEASTS, ...ROUTINE_CARE],
  },
  {
    name: 'accident',
    description: 'serious accident, car crash, injured, killed, hospital emergency, ambulance, collision, victims, fatal injuries',
    phrases: [
      '{not just after figure} car crash {unless lesson}', 'car accident', 'fatal accident', 'hit by a car', 'seriously injured', 'critically injured', 'plane crash',
      'hit and run', 'drunk driver', 'head on collision', 'motorcycle accident', 'train crash', 'car wreck', 'airlifted',
      // Batch 13: "the air ambulance came" (not its charity's raffle), "they're saying he might lose his leg".
      'air ambulance {unless charity}', ...['lose', 'losing'].flatMap((lose) => ['my', 'his', 'her'].flatMap((whose) => ['leg', 'arm', 'foot'].map((limb) => `${lose} ${whose} ${limb}`))),
      'knocked off his bike', 'knocked off her bike', 'knocked off my bike', 'knocked down by a car', 'run over by',
      '{someone} run over', 'got run over', 'was run over',
      // A person hit by a vehicle ("my sister was hit by a lorry"), not "I feel like I got hit by a truck".
      ...['lorry', 'truck', 'bus', 'van', 'train', 'tram', 'motorbike', 'motorcycle', 'taxi', 'cyclist'].map((vehicle) => `{someone} hit by a ${vehicle}`),
      // Attacked by an animal: "got bit in the face by a dog".
      'mauled by a', 'attacked by a dog', 'attacked by dogs', 'bitten by a dog', 'bit by a dog', 'bit in the face', 'bitten in the face', 'dog attack',
      'paralysed from the waist', 'paralyzed from the waist', 'paralysed from the neck', 'paralyzed from the neck', 'paralysed from the chest', 'paralyzed from the chest',
      'life support', 'intensive care', 'critical condition', 'broke his neck', 'broke her neck', 'broken neck', 'spinal injury',
      // A fall that puts someone in hospital: "grandad had a bad fall", "my dad fell from the roof".
      // Also after "he", "she": "my husband is paralysed since he fell off a ladder".
      '{someone} had a fall', '{anybody} had a bad fall', '{anybody} had a nasty fall', '{anyone} fell down the stairs', '{anyone} fell from the roof',
      '{anyone} fell off the roof', '{anyone} fell from a ladder', '{anyone} fell off a ladder', '{anyone} fell off the ladder',
      // Swallowed or scalded, maimed: "my toddler swallowed a button battery", "drank some bleach", "lost three fingers".
      ...SWALLOWED, 'poison control', 'poison center', 'poison centre', 'poisons centre', 'poisons information',
      ...['herself', 'himself', 'themselves', 'myself'].flatMap((whom) => ['on', 'onto', 'over', 'all over'].map((where) => `boiling water ${where} ${whom}`)),
      'badly burned {unless object}', 'badly burnt {unless object}', 'severely burned', 'severe burns', 'serious burns', 'degree burns', 'burns unit', 'scalds',
      ...['a', 'two', 'three', 'four', 'his', 'her', 'their'].flatMap((which) => ['finger', 'fingers', 'eye'].map((part) => `lost ${which} ${part}`)),
      ...['his', 'her', 'their'].flatMap((whose) => ['arm', 'leg', 'foot', 'legs', 'arms'].map((part) => `lost ${whose} ${part}`)),
      'amputated', 'amputation', 'amputate', 'amputating',
      // A burn treated at hospital, a hot thing pulled down on a child, a train off its rails (session 39).
      ...['burn', 'burns', 'scald'].flatMap((burn) => ['my', 'his', 'her', 'their'].flatMap((whose) => ['arm', 'arms', 'hand', 'hands', 'leg', 'legs', 'face', 'chest', 'foot', 'feet', 'back', 'neck'].map((part) => `${burn} on ${whose} ${part} {if treated}`))),
      'nasty burn {if treated}', 'bad burn {if treated}',
      'train derailed', 'train derailment',
      // Cut out of a wreck, a bad smash on the road, a fall from a horse, a broken back (session 38).
      ...['him', 'her', 'them', 'me', 'us'].flatMap((whom) => ['car', 'wreck', 'wreckage', 'vehicle', 'van', 'lorry'].map((what) => `cut ${whom} out of the ${what}`)), 'cut free from the',
      'bad smash {if road}', 'serious smash {if road}', 'horrific smash {if road}', 'head on smash',
      // Not when the rider got up unhurt (session 39: "came off my motorbike at low speed, no pain").
      ...['my', 'his', 'her'].flatMap((whose) => ['horse', 'motorbike', 'motorcycle', 'quad bike'].map((what) => `{not with unhurt} came off ${whose} ${what} {if injury}`)),
      ...['fractured', 'broken', 'broke', 'crushed'].flatMap((broken) => ['vertebrae', 'vertebra', 'two vertebrae', 'three vertebrae', 'several vertebrae', 'a vertebra'].map((bone) => `${broken} ${bone}`)),
      '{not after exaggeration} broke his back', '{not after exaggeration} broke her back', 'broken back', 'fractured spine', 'spinal injuries', 'spinal cord injury',
      // A scald from a kettle or a pan pulled over: "my 4 year old pulled the kettle over on herself".
      ...['kettle', 'saucepan', 'teapot', 'chip pan', 'deep fat fryer'].flatMap((what) => ['herself', 'himself', 'themselves', 'myself'].flatMap((whom) => [`${what} over on ${whom}`, `${what} over ${whom}`])),
      // Under water too long, a motorway pile-up, an old person's fall: "my son nearly drowned", "mum broke her hip".
      // (Keyed by their rarer word: "nearly", "in" and "hip" are in many everyday bodies, bench/README.md "Brand safety: session 36".)
      '{nearly} drowned {unless swamped}', 'near drowning', 'pile up {if road}', 'pileup {if road}',
      // Session 42: run into from behind ("someone went into the back of me at the lights", not when nobody was hurt), whiplash on the road, a gas explosion,
      // a hot tool pulled onto a child ("pulled the hair straighteners onto her arm"), and a crash or accident someone is still hurt from ("still in a wheelchair after the crash").
      ...['went into the back of', 'drove into the back of', 'crashed into the back of', 'smashed into the back of', 'ploughed into the back of', 'slammed into the back of'].flatMap((into) =>
        ['me', 'us', 'my car', 'our car', 'his car', 'her car'].map((whom) => `{not with unhurt} ${into} ${whom}`)),
      '{not with unhurt} rear ended', 'whiplash {if road}', 'gas explosion', 'boiler explosion', 'gas blast',
      ...['straighteners', 'hair straighteners', 'curling iron', 'curling tongs', 'the iron', 'kettle', 'saucepan', 'pan of boiling water'].flatMap((what) =>
        ['her', 'his', 'their', 'herself', 'himself', 'themselves', 'my'].map((whom) => `${what} onto ${whom}`)),
      // (An accident is an injury's word itself.)
      ...['after', 'since'].flatMap((after) => ['the', 'her', 'his', 'my', 'their'].flatMap((whose) => [`${after} ${whose} crash {if injury}`, `${after} ${whose} accident`])),
      'broke her hip', 'broke his hip', 'broken hip', 'fractured hip', 'fractured skull', 'skull fracture', '{someone} tripped down the stairs',
      '{someone} tripped on the stairs',
      // A broken bone said with its injury ("a forklift reversed into my leg, it's broken": "a broken leg is reportable ... workplace injuries"), not a chair's leg.
      // Smashed and shattered as broken (session 40: "smashed my hip and they're operating tomorrow"); "my" is said of others too (OTHER_PERSONS).
      ...['leg', 'legs', 'arm', 'arms', 'ankle', 'wrist', 'pelvis', 'ribs', 'jaw', 'collarbone', 'skull', 'hip', 'kneecap'].flatMap((bone) => [
        // ("broken hip" is a phrase alone, below.)
        ...['broken', 'broke my', 'smashed my', 'shattered my'].filter((broke) => bone !== 'hip' || broke !== 'broken').map((broke) => `${broke} ${bone} {if injury}`),
        // Fractured is an injury's word itself, as below.
        `fractured my ${bone}`,
      ]),
      // The same said after the bone: "they think his neck is broken, we're in A&E".
      ...['neck', 'leg', 'legs', 'arm', 'arms', 'ankle', 'wrist', 'pelvis', 'ribs', 'jaw', 'collarbone', 'skull', 'spine', 'eye socket'].flatMap((bone) =>
        ['is broken', 'was broken', 's broken'].map((broken) => `${bone} ${broken} {if injury}`),
      ),
      // Fractured is an injury's word itself ("my eye socket is fractured").
      ...['neck', 'leg', 'arm', 'ankle', 'wrist', 'pelvis', 'jaw', 'collarbone', 'skull', 'spine', 'eye socket', 'cheekbone'].flatMap((bone) => ['is fractured', 'was fractured', 's fractured'].map((fractured) => `${bone} ${fractured}`)),
      // Session 45: a bleed on the brain, a side impact ("got t-boned on the way home", not when nobody was hurt), an eye or fingers lost
      // ("compensation for losing an eye"), a fall from a window, a balcony or scaffolding ("kid fell out of a second floor window"),
      // a vehicle that hit a person ("train hit someone at my station"; not "a bus hit my wing mirror").
      ...['bleed on the brain', 'bleed on his brain', 'bleed on her brain', 'bleeding on the brain', 'brain bleed', 'brain haemorrhage', 'brain hemorrhage'],
      '{not with unhurt} {letter t} boned', '{not with unhurt} tboned',
      ...['lost', 'losing'].flatMap((lost) => [
        // (After review: not a poker hand nor a thumb drive: "lost a hand of poker", "i lost a thumb drive".)
        ...['a', 'an', 'two', 'three', 'his', 'her', 'their'].flatMap((which) => ['eye', 'finger', 'fingers', 'thumb {unless drive}', 'toes'].map((part) => `${lost} ${which} ${part}`)),
        `${lost} an arm`, `${lost} a hand {unless cards}`, `${lost} a foot`,
      ]),
      ...['fell out of', 'fell from', 'fell off', 'fallen out of', 'fallen from', 'fallen off'].flatMap((fell) => ['a', 'the', 'his', 'her', 'their', 'my', 'our'].flatMap((whose) =>
        ['window', 'bedroom window', 'upstairs window', 'first floor window', 'second floor window', 'third floor window', '1st floor window', '2nd floor window', '3rd floor window', 'balcony', 'scaffolding', 'scaffold', 'cliff']
          .map((where) => `{anybody} ${fell} ${whose} ${where}`))),
      ...['train', 'car', 'lorry', 'truck', 'bus', 'van', 'tram', 'taxi', 'motorbike', 'driver'].flatMap((vehicle) =>
        ['hit someone', 'hit a pedestrian', 'hit a cyclist', 'hit a child', 'hit a kid', 'hit a man', 'hit a woman', 'hit a boy', 'hit a girl', 'killed a', 'killed my', 'killed our'].map((hit) => `${vehicle} ${hit}`)),
      'person under a train',
    ],
    // Left inside a fire, a wreck or water ("there was a fire in my block, my neighbour didn't get out"), not a pet that did not escape.
    ambiguous: [
      // Session 42: "our neighbours didn't make it out" of a fire.
      ...["didn't make it out", 'didnt make it out', 'did not make it out', 'never made it out', "couldn't make it out"].map((out) => `{someone} ${out} {unless outing}`),
      "{someone} didn't get out {unless outing}", '{someone} didnt get out {unless outing}', '{someone} did not get out {unless outing}', "{someone} couldn't get out {unless outing}"],
    confirmedBy: ['fire', 'fires', 'flames', 'smoke', 'blaze', 'burning', 'wreck', 'wreckage', 'sank', 'sinking', 'collapsed', 'rubble'],
    otherLanguages: {
      es: ['accidente de moto', 'en la uci', 'en cuidados intensivos', 'accidente de tráfico', 'accidente de coche', 'accidente de carro', 'accidente mortal', 'gravemente herido', 'gravemente herida', 'atropellado', 'atropellada'],
      nl: ['motorongeluk', 'op de intensive care', 'auto ongeluk', 'verkeersongeval', 'verkeersongeluk', 'dodelijk ongeluk', 'dodelijk ongeval', 'zwaargewond', 'zwaar gewond', 'aangereden', 'verongelukt', 'om het leven gekomen'],
      de: ['motorradunfall', 'auf der intensivstation', 'autounfall', 'verkehrsunfall', 'tödlich verunglückt', 'tödlichen unfall', 'schwer verletzt', 'ums leben gekommen'],
      fr: ['accident de moto', 'accident de scooter', 'en réanimation', 'aux soins intensifs', 'accident de voiture', 'accident de la route', 'accident mortel', 'grièvement blessé', 'grièvement blessée', 'gravement blessé', 'renversé par une voiture'],
      it: ['incidente in moto', 'incidente con la moto', 'in terapia intensiva', 'in rianimazione', 'incidente stradale', 'incidente mortale', "incidente d'auto", 'gravemente ferito', 'gravemente ferita'],
      pt: ['acidente de moto', 'na uti', 'nos cuidados intensivos', 'acidente de carro', 'acidente de trânsito', 'acidente fatal', 'gravemente ferido', 'gravemente ferida', 'atropelado', 'atropelada'],
      pl: ['wypadek motocyklowy', 'wypadku motocyklowym', 'na oiom', 'na oiomie', 'wypadek samochodowy', 'wypadku samochodowym', 'wypadek drogowy', 'wypadku drogowym', 'śmiertelny wypadek', 'ciężko ranny', 'ciężko ranna', 'potrącony', 'potrącona', 'potrącił'],
      tr: ['trafik kazası', 'trafik kazasında', 'kaza geçirdi', 'ağır yaralı', 'ağır yaralandı', 'yoğun bakımda', 'hayati tehlikesi'],
      sv: ['trafikolycka', 'bilolycka', 'svårt skadad', 'på intensiven'],
      // Not a phone or its screen smashed ("телефон разбился"), after review.
      ru: ['дтп', 'в реанимации', '{not after device} разбился', '{not after device} разбилась'],
      ro: ['accident rutier', 'accident de mașină', 'accident de masina', 'grav rănit', 'la terapie intensivă', 'la terapie intensiva'],
      // Not an insurer's or a statistic's "kecelakaan" ("asuransi kecelakaan", "kecelakaan kerja"), after review.
      id: ['kecelakaan motor', 'kecelakaan mobil', 'kecelakaan lalu lintas', 'mengalami kecelakaan', 'korban kecelakaan', 'kecelakaan parah', 'luka parah', 'di icu'],
      cs: ['autonehoda', 'dopravní nehoda', 'těžce zraněn', 'na jipce'],
      hi: ['accident ho gaya', 'accident ho gayi', 'accident hua', 'icu mein'],
    },
    cues: [
      'accident', 'accidents', 'crash', 'crashed', 'collision', 'collided', 'wreck', 'injured', 'injury', 'injuries', 'hurt', 'killed',
      'fatal', 'died', 'dead', 'ambulance', 'paramedics', 'hospital', 'emergency', 'icu', 'victim', 'victims', 'trauma', 'fracture', 'fractured',
      'surgery', 'knocked', 'fell', 'wrecked', 'coma', 'drowned', 'drowning', 'drown',
    ],
    clears: [
      'nobody hurt', 'nobody was hurt', 'nobody got hurt', 'no one hurt', 'no one was hurt', 'no one got hurt', 'noone was hurt',
      'nobody injured', 'nobody was injured', 'no one injured', 'no one was injured', 'no injuries', 'without injuries',
      'everyone is fine', 'everyone is ok', 'everyone is okay', 'everybody is fine', 'everybody is ok', 'everyone s fine', 'everyone s ok',
      'unhurt', 'uninjured', 'wasn t hurt', 'weren t hurt', 'not hurt', 'not injured',
      ...NOT_LIVED, ...HISTORY, ...ROUTINE_OPERATIONS, ...FICTION, ...FIGURATIVE_CRASH, ...ROUTINE_CARE,
    ],
  },
  {
    name: 'disaster',
    description: 'natural disaster, earthquake, flood, hurricane, wildfire, tsunami, evacuation, destroyed homes, victims, relief',
    phrases: [
      'evacuated {unless vacuum}', 'evacuation order', 'mass shooting', 'terrorist attack', 'burned down', 'burnt down', 'house fire', 'gunman', 'opened fire', 'school shooting',
      'burst its banks', 'burst their banks', 'broke its banks',
      // War and shootings as lived ("fled the war", "after the shooting at the race"), not a history book or a photo shoot.
      '{not after mess} war zone', 'air strike', 'air strikes', 'airstrike', 'airstrikes', 'fled the war', 'fleeing the war', 'refugee camp', 'after the shooting {unless filming}', 'since the shooting {unless filming}',
      ...['fled', 'fleeing', 'flee', 'escaped'].flatMap((fled) => ['the fighting', 'the violence', 'the bombing', 'the bombs', 'the shelling'].map((what) => `${fled} ${what}`)),
      // What a fire or a flood took: "the fire took our home" (not "took my breath away").
      ...['fire', 'fires', 'flames', 'blaze', 'flood', 'floods', 'floodwater', 'wildfire', 'storm', 'hurricane', 'tornado', 'earthquake', 'tsunami', 'typhoon', 'cyclone'].flatMap((what) =>
        ['took our', 'took my', 'took their', 'took his', 'took her', 'took everything'].map((took) => `${what} ${took} {unless breath}`),
      ),
      // What passed through a town ("the tornado came through our town"; not a storm, which is weather as often).
      ...['tornado', 'hurricane', 'typhoon', 'cyclone', 'wildfire', 'bushfire', 'tsunami', 'earthquake'].flatMap((what) =>
        ['came through our', 'tore through our', 'ripped through our', 'hit our', 'flattened our', 'levelled our', 'leveled our'].map((did) => `{not with unharmed} ${what} ${did}`),
      ),
      // Batch 13: "the earthquake flattened my cousin's town", floodwater that "swept through the high street" (a flood as a whole, not "a flood of emails").
      ...['tornado', 'hurricane', 'typhoon', 'cyclone', 'wildfire', 'bushfire', 'tsunami', 'earthquake'].flatMap((what) => ['flattened my', 'destroyed my', 'destroyed our'].map((did) => `{not with unharmed history} ${what} ${did}`)),
      ...['flood', 'floods', 'floodwater', 'floodwaters'].flatMap((what) => ['tore through', 'ripped through', 'swept through'].map((did) => `{not with unharmed history} ${what} ${did}`)),
      // Everything lost with a flood's or a fire's word ("water came through the front door and we lost everything"), not at the casino.
      'lost everything {if ruin}',
      // A home lost with a fire's or flood's word ("in the path of the fire, we lost the house"), not a house sale that fell through.
      ...['the', 'our', 'my', 'their'].flatMap((whose) => ['house', 'home', 'farm', 'flat', 'apartment'].map((home) => `lost ${whose} ${home} {unless purchase} {if ruin}`)),
      // A place gone after a quake, a wildfire or a slide (not a storm or a flood, which are weather as often: "the storm is gone now").
      ...['earthquake', 'quake', 'tsunami', 'tornado', 'twister', 'wildfire', 'bushfire', 'avalanche', 'landslide', 'mudslide', 'typhoon', 'cyclone'].map((what) => `{not with unharmed} ${what} {unless forecast} {if gone}`),
      // Water risen inside a home, without the word flood: "the water's up to the second step inside our house".
      ...['s up to', 'is up to', 'was up to', 'came up to', 'got up to', 'is still rising', 's still rising', 'keeps rising'].map((risen) => `water ${risen} {if indoors}`),
      // Bombs and missiles lived through: "a bomb went off at the concert", "our flat was hit by a missile".
      'bomb went off', 'bomb exploded', '{not after cocktail} car bomb', 'terror attack', 'hit by a missile', 'hit by missiles', 'missile strike', 'missile strikes', 'missile attack',
      'rocket attack', 'rocket attacks', 'drone strike', 'drone strikes', 'drone attack',
      // Shelled by an army, not nuts nor money shelled out: "our village was shelled", "shelled for a week" with a war's word.
      '{place} shelled', 'shelled {if war}', ...['again', 'overnight', 'last night', 'all night', 'every night', 'every day', 'daily', 'nightly'].map((when) => `shelled ${when}`),
      // Strikes on a home (not a rail strike): "no answer since the strikes on their block".
      ...['strike', 'strikes'].flatMap((strike) => ['our', 'their', 'my', 'his', 'her'].flatMap((whose) => ['block', 'building', 'street', 'house', 'home', 'flat', 'apartment', 'town', 'village', 'city', 'neighbourhood', 'neighborhood'].map((place) => `${strike} on ${whose} ${place}`))),
      // A shooting lived through ("there was a shooting at my kid's school"; keyed by "shooting", not the common "was"), and what an answer points to after a war or a disaster.
      ...['my', 'our', 'his', 'her', 'their', 'the'].flatMap((whose) => ['school', 'kid', 'kids', 'son', 'daughter', 'college', 'church', 'mosque', 'synagogue'].map((where) => `shooting at ${whose} ${where}`)),
      'active shooter', 'family tracing', 'restoring family links',
      // A war's dead and captives (session 41: "his unit took casualties yesterday", "the hostages taken in the attack").
      ...['took casualties', 'taken casualties', 'heavy casualties', 'civilian casualties', 'casualties {if war}', 'killed in action', 'missing in action'].map((toll) => `{not with history} ${toll}`), 'taken hostage', 'hostages {if captivity}', 'hostage {unless hostage} {if captivity}',
      // A soldier at the front (not the front line of customer service): "my brother is on the front line near kharkiv".
      'front line {if war}', 'frontline {if war}', 'front lines {if war}',
      // Missiles and bombs that hit a home, a town's street entered by a river, a building down on people (session 39).
      ...['missile', 'missiles', 'rocket', 'rockets', 'bomb', 'bombs', 'shell', 'shells'].flatMap((what) => ['hit our', 'hit my', 'hit their', 'struck our', 'landed on our', 'destroyed our'].map((hit) => `${what} ${hit}`)),
      // A drone's too, and a building hit next door, with a war's word (session 40: "sirens all night again in odesa and a drone hit the building next to my cousin's"), not a toy drone.
      ...['missile', 'missiles', 'rocket', 'rockets', 'bomb', 'bombs', 'shell', 'shells', 'drone', 'drones'].flatMap((what) => [
        ...(what.startsWith('drone') ? ['hit our', 'hit my', 'hit their', 'struck our', 'landed on our', 'destroyed our'] : []),
        // Nearby with a war's word too (session 42: "rockets hit near my parents' flat ... the shelter when the sirens sound").
        'hit near', 'landed near', 'struck near', 'fell near',
        'hit the building', 'hit a building', 'hit the block', 'hit the flats', 'hit the house', 'hit the street', 'hit the hospital', 'hit the school',
        // A missile is a war's word itself (CONFIRMED_WITH.war).
      ].map((hit) => (what.startsWith('missile') ? `${what} ${hit}` : `${what} ${hit} {if war}`))),
      // No word from family in a war (session 40: "my family is still in gaza and I haven't heard from them in four days").
      ...['haven t heard from', 'havent heard from', 'not heard from', 'lost contact with', 'no news from'].map((silence) => `${silence} {if war}`),
      // Batch 13: "the floods came through the village overnight and our ground floor is ruined".
      ...['river', 'sea', 'floodwater', 'flood water', 'flood', 'floods'].flatMap((what) =>
        ['came through the', 'came into the', 'came into our', 'came in through', 'came up into our', 'came up into the', 'came up through the', 'rose into our', 'rose into the', 'poured into our', 'poured into the', 'got into the', 'got into our'].map((came) => `${what} ${came} {if indoors}`),
      ),
      'trapped under the rubble', 'trapped in the rubble', 'pulled from the rubble',
      // A building down, a boat over, a chemical leak, with a rescue's words: "people are trapped under it, rescue teams are digging"; not a kayak lesson.
      ...[
        '{structure} collapsed', '{structure} collapse', 'collapsed building', 'trapped under', 'trapped inside',
        'capsized', 'ferry sank', 'boat sank', 'ship sank', 'chemical leak', 'chemical spill', 'toxic leak', 'toxic cloud', 'gas leak',
      ].map((what) => `${what} {if rescue}`),
      // Session 45: air raid sirens lived through (not a history lesson's), the fighting that reached someone's street, a kidnapping
      // for ransom (not a novel's), and the tracing of family an answer points to ("the Red Cross helps families trace people").
      ...['air raid sirens', 'air raid siren', 'air raid alert', 'air raid alerts', 'air raid alarm'].map((sirens) => `{not with history} ${sirens}`),
      ...['has reached', 'reached', 'is near', 'is close to', 'got to', 'has got to', 'spread to', 'has spread to', 'is in'].map((reached) => `fighting ${reached} {if war}`),
      'kidnapped {unless story} {if ransom}', 'ransom demand',
      // (After review: not a family tree's "trace relatives in county cork".)
      ...['trace people', 'trace relatives', 'trace family members'].map((trace) => `${trace} {if kin}`), 'trace missing', 'tracing missing',
    ],
    // Named in sales, preparedness and figures of speech as often ("hurricane season sale", "an
    // earthquake kit", "spread like wildfire", "the basement flooded when the hose burst").
    // "Our house is underwater" is a mortgage too.
    // "war" of history books and price wars; "bombed" an exam.
    ambiguous: [
      // Not when the speaker says they came through unharmed ("the hurricane hit our area but we were fine").
      ...['earthquake', 'quake', 'tsunami', 'hurricane', 'wildfire', 'bushfire', 'bushfires', 'bush fire', 'forest fire', 'tornado', 'typhoon', 'cyclone', 'flood', 'floods', 'flooded', 'flooding', 'flash flood', 'storm'].map((what) => `{not with unharmed history} ${what}`),

      '{place} under water', '{place} underwater',
      // Said of emails and ski courses too ("an avalanche of emails", "avalanche safety course").
      '{not with unharmed} avalanche {unless luck}', '{not with unharmed} mudslide {unless luck}', '{not with unharmed} volcano', 'volcanic eruption',
      '{not with history} war', 'bombed', 'shelling',
    ],
    confirmedBy: [
      'destroyed', 'damaged', 'collapsed', 'survived', 'survivor', 'survivors', 'killed', 'died', 'dead', 'deaths', 'injured', 'missing', 'trapped',
      'homeless', 'evacuate', 'evacuation', 'victims', 'rubble', 'devastated', 'devastation', 'lost', 'ripped', 'displaced', 'relief', 'aftermath',
      'swept', 'toll', 'rescue',
      // Session 42: "a tornado levelled the whole neighbourhood".
      'levelled', 'leveled',
      // Hit as a disaster hits a place, not a ship that hit an iceberg ("the titanic hit an iceberg ... four flooded").
      'hit our', 'hit us', 'hit my', 'hit the town', 'hit the city', 'hit the village', 'hit the area', 'hit the region', 'hit the island', 'hit the coast', 'hit hard', 'was hit', 'were hit', 'got hit', 'hit by', 'rescued', 'stranded', 'fled', 'fleeing', 'refugee', 'refugees', 'soldiers', 'invaded', 'invasion',
    ],
    otherLanguages: {
      es: ['terremoto', 'sismo', 'huracán', 'inundación', 'inundaciones', 'incendio forestal', 'evacuados', 'atentado terrorista', 'tiroteo masivo'],
      nl: ['aardbeving', 'overstroming', 'overstromingen', 'bosbrand', 'natuurramp', 'geëvacueerd', 'terroristische aanslag', 'bomaanslag'],
      de: ['erdbeben', 'überschwemmung', 'hochwasser', 'wirbelsturm', 'waldbrand', 'evakuiert', 'terroranschlag', 'amoklauf'],
      fr: ['tremblement de terre', 'séisme', 'inondation', 'inondations', 'ouragan', 'incendie de forêt', 'évacués', 'attentat'],
      it: ['terremoto', 'alluvione', 'inondazione', 'uragano', 'incendio boschivo', 'evacuati', 'attentato'],
      pt: ['terremoto', 'sismo', 'enchente', 'inundação', 'furacão', 'incêndio florestal', 'desabrigados', 'atentado'],
      pl: ['trzęsienie ziemi', 'trzęsieniu ziemi', 'powódź', 'powodzią', 'pożar lasu', 'ewakuowani', 'ewakuowano', 'zamach terrorystyczny', 'ostrzał', 'ostrzału', 'bombardowanie'],
      tr: ['depremde', 'depremzede', 'sel felaketi', 'selde', 'orman yangını', 'tahliye edildi', 'terör saldırısı', 'bombalı saldırı', 'afetzede', 'afetzedeler', 'enkaz', 'enkaz altında'],
    },
    cues: [
      'earthquake', 'quake', 'flood', 'floods', 'flooding', 'hurricane', 'storm', 'tornado', 'wildfire', 'fire', 'fires', 'burned', 'burnt', 'tsunami',
      'evacuate', 'evacuated', 'evacuation', 'destroyed', 'disaster', 'victims', 'relief', 'shelter', 'homeless', 'shooting', 'attack', 'bombing',
      'typhoon', 'cyclone', 'missile', 'frontline', 'avalanche', 'landslide', 'mudslide', 'volcano', 'eruption', 'bushfire', 'bushfires', 'capsized', 'derailed',
    ],
    clears: [...NOT_LIVED, ...HISTORY, ...FICTION, ...MINOR_DAMAGE, ...FORECAST, ...ROUTINE_CARE],
  },
  {
    name: 'serious diagnosis',
    description: 'diagnosed with cancer, tumor, terminal illness, chemotherapy, oncologist, malignant, prognosis, leukemia, stroke',
    phrases: [
      // Not a charity's or a family's history (session 39): "a charity 10k for cancer research", "heart failure runs in my family"; nor a nurse's field: "she works in palliative care".
      // Session 46: not a story's character nor a subject studied, when their words are about the illness (`{not near NAME}`).
      '{not near plot} diagnosed with {unless routine policy}', '{not with astrology} {not near plot coursework fundraising} {not just after sign example} {not after prevention} cancer {unless astrology charity heredity screening}',
      '{not near plot coursework} tumor', '{not near plot coursework} tumour', 'terminal illness',
      '{not with career} {not near plot coursework} chemotherapy', '{not with career} {not near plot coursework} chemo', '{not with career} oncologist', '{not near plot coursework} malignant', '{not near plot coursework} leukemia', 'metastatic',
      '{not just after work} palliative', 'hiv', 'dementia {unless heredity}', 'alzheimer {unless heredity}', 'alzheimers {unless heredity}', 'parkinson {unless heredity}', 'parkinsons {unless heredity}', 'multiple sclerosis', 'motor neurone disease', 'motor neuron disease',
      ...['lymphoma', 'melanoma', 'carcinoma', 'sarcoma'].map((cancer) => `{not near plot coursework} ${cancer}`), 'biopsy', 'mastectomy', 'radiotherapy', 'radiation therapy', 'radiation treatment',
      'terminally ill', 'months to live', 'weeks to live',
      // A prognosis said as time (session 38: "mum's been told she has months, not years"), an organ failing.
      // A prognosis said as time given (session 42: "husband's been given 6 months"), with a medical word ("hospice"): not notice at work or a sentence.
      ...['given', 'given him', 'given her', 'gave him', 'gave her', 'given me', 'gave me', 'given us', 'gave us'].flatMap((given) =>
        ['a few', 'a couple of', 'two', 'three', 'four', 'five', 'six', 'nine', 'twelve', 'eighteen', '2', '3', '4', '5', '6', '9', '12', '18'].flatMap((n) => ['months', 'weeks', 'days', 'years'].map((span) => `${given} ${n} ${span} {if care}`))),
      '{having} months not years', '{having} weeks not months', '{having} days not weeks', '{having} months rather than years', '{having} weeks rather than months',
      'kidney failure {unless heredity}', 'renal failure', 'heart failure {unless heredity}', 'liver failure {unless heredity}', 'organ failure', 'kidneys are failing', 'kidneys failing', 'heart is failing', 'liver is failing', '{someone} had a heart attack', 'suffered a stroke',
      // The speaker's own stroke too: "had a stroke last month at 42" (not "a stroke of luck", nor "I nearly had a stroke when I saw the bill").
      '{not after exaggeration} had a stroke {unless luck}', 'since my stroke', 'since his stroke', 'since her stroke',
      // Diseases named by their letters, after "has", "with" ("ALS" is German for "as"; "MS" is Microsoft too, so ambiguous below).
      'amyotrophic lateral sclerosis', 'lou gehrig', '{having} als', '{having} mnd', '{having} motor neurone', '{having} motor neuron',
      // Radiotherapy as people say it: "I start radiation next week".
      '{starting} radiation {unless physics}', 'radiation sessions',
      // Session 45: British spellings and named cancers ("my son has leukaemia"), a lump a doctor found ("they found a lump and the consultant's face said it all").
      '{not near plot coursework} leukaemia', 'glioblastoma', 'glioma', 'mesothelioma', 'myeloma', 'neuroblastoma', 'huntington s disease', 'huntingtons disease', 'sepsis',
      'found a lump {if care}', 'lump in my breast', 'lump in her breast', 'lump in my testicle', 'breast lump',
      // The end of treatment said by a vet or a doctor (session 41: "the vet says there's nothing more they can do for our old horse").
      // (Said of "the doctors" or "the vet" it names its care itself: written plain.)
      ...['nothing more', 'nothing else', 'nothing left'].flatMap((nothing) => [
        ...['they can do', 'we can do', 'they could do', 'to be done'].map((can) => `${nothing} ${can} {if care}`), `${nothing} the doctors can do`, `${nothing} the vet can do`,
      ]),
    ],
    // Staging and "terminal" are said of races, projects and airports too; "a mass" of church.
    ambiguous: [
      'stage three', 'stage four', 'stage 3', 'stage 4', 'stage iii', 'stage iv', '{not near plot coursework} terminal', 'mass on my', 'mass on his', 'mass on her', 'mass in my', 'mass in his', 'mass in her', '{not with nuclear} radiation',
      '{having} ms {unless software}', 'mnd', 'big c',
      // A finding on an organ, with a scan's or a doctor's word (session 41: "the scan found a shadow on my lung, more tests on Friday").
      ...['shadow', 'shadows', 'spot', 'spots', 'lesion', 'lesions', 'nodule', 'nodules', 'growth', 'growths'].flatMap((finding) => ['on', 'in'].flatMap((on) => ['my', 'the'].flatMap((whose) =>
        ['lung', 'lungs', 'liver', 'brain', 'pancreas', 'kidney', 'kidneys', 'breast', 'bowel', 'ovary', 'ovaries', 'bladder', 'spine', 'bone', 'bones', 'colon', 'prostate', 'thyroid', 'uterus', 'womb'].map((organ) => `${finding} ${on} ${whose} ${organ}`)))),
    ],
    confirmedBy: [
      'doctor', 'doctors', 'oncologist', 'results', 'scan', 'scans', 'diagnosis', 'diagnosed', 'treatment', 'surgeon', 'surgery', 'biopsy', 'chemo', 'prognosis',
      // The cancer charity an answer points to (session 45: "my mum's got the big C again ... lean on Macmillan").
      'macmillan',
      'hospital', 'consultant', 'lump', 'tumor', 'tumour', 'spread', 'illness', 'disease', 'tests', 'neurologist', 'treatments', 'wheelchair', 'symptoms', 'relapse',
    ],
    otherLanguages: {
      nl: ['kanker', 'chemokuur', 'chemotherapie', 'uitgezaaid', 'uitzaaiingen', 'terminaal ziek', 'ongeneeslijk ziek', 'leukemie', 'palliatieve', 'palliatief'],
      es: ['{not with astrology} {not near plot coursework fundraising} {not just after sign example} {not after prevention} cáncer {unless astrology charity heredity screening}', 'tumor', 'quimioterapia', 'diagnosticado con', 'diagnosticada con', 'enfermedad terminal', 'leucemia', 'metástasis', 'cuidados paliativos', 'vih'],
      de: ['{not with astrology} krebs', 'krebsdiagnose', 'tumor', 'chemotherapie', 'diagnostiziert', 'unheilbar', 'leukämie', 'metastasen', 'palliativ', 'hiv'],
      // "cancer" is the English phrase (and "cáncer", "câncer" without accents): guarded the same way.
      fr: ['tumeur', 'chimiothérapie', 'diagnostiqué', 'diagnostiquée', 'maladie incurable', 'leucémie', 'métastases', 'soins palliatifs', 'vih'],
      it: ['cancro', 'tumore', 'chemioterapia', 'diagnosticato', 'diagnosticata', 'malattia terminale', 'leucemia', 'metastasi', 'cure palliative', 'hiv'],
      pt: ['{not with astrology} {not near plot coursework fundraising} {not just after sign example} {not after prevention} câncer {unless astrology charity heredity screening}', 'cancro', 'tumor', 'quimioterapia', 'diagnosticado com', 'diagnosticada com', 'doença terminal', 'leucemia', 'metástase', 'cuidados paliativos', 'hiv'],
      // Polish "rak" is a crayfish and the star sign too: its cases after an illness's word are left to "nowotwór".
      pl: ['nowotwór', 'nowotworu', 'nowotworem', 'chemioterapia', 'chemioterapii', 'przerzuty', 'przerzutów', 'białaczka', 'białaczkę', 'nieuleczalnie chory', 'nieuleczalnie chora', 'hospicjum', 'raka płuc', 'raka piersi', 'na raka'],
      tr: ['{not with astrology} kanser', 'kanserim', 'kanseri', 'tümör', 'kemoterapi', 'lösemi', 'metastaz', 'ölümcül hastalık', 'teşhis kondu'],
      sv: ['cellgiftsbehandling', 'spridd cancer'],
      ru: ['онкология', 'онкологию', 'химиотерапия', 'химиотерапию', 'опухоль', 'метастазы'],
      ro: ['chimioterapie', 'tumoare', 'metastaze'],
      id: ['kanker', 'kemoterapi', 'tumor ganas'],
      cs: ['rakovina', 'rakovinu', 'chemoterapie', 'nádor'],
    },
    cues: [
      'diagnosed', 'diagnosis', 'cancer', 'tumor', 'tumour', 'terminal', 'chemo', 'chemotherapy', 'oncologist', 'malignant', 'prognosis', 'leukemia',
      'stroke', 'biopsy', 'scan', 'results', 'positive', 'stage', 'illness', 'disease', 'treatment', 'hospice', 'palliative', 'mass', 'lump', 'radiation', 'oxygen', 'dialysis',
    ],
    // Batch 13: a cancer's figures or a textbook's notes as school work ("the survival rate for breast cancer ... for a statistics assignment").
    clears: [...NOT_LIVED, ...ROUTINE_OPERATIONS, ...ROUTINE_DIAGNOSES, ...WORK_FIELD, ...SCHOOLWORK, ...ROUTINE_CARE, ...FICTION, ...EVERYDAY_NEAR.plot!, 'survival rate', 'survival rates', 'revision notes', 'revision guide', 'statistics assignment'],
  },
  {
    name: 'self-harm',
    description: 'suicide, suicidal thoughts, self harm, want to die, hopeless, overdose',
    phrases: [
      'suicide {unless named story}', 'suicidal', 'self harm', 'self-harm', 'kill myself', 'end my life {unless insurance}', 'overdose {unless indulgence}', 'overdosed {unless indulgence}',
      // Every form of the verb, said of anyone (OTHER_PERSONS; session 40: "my son tried to take his own life").
      ...['take', 'takes', 'taking', 'taken', 'took', 'tried to take', 'try to take', 'trying to take'].map((take) => `${take} my own life`), 'ended my life', 'ending my life {unless insurance}',
      // Harm done until it bleeds, in distress (session 40: "I scratch my arms till they bleed when I'm stressed").
      ...['till', 'until', 'til'].flatMap((till) => ['they bleed', 'it bleeds', 'i bleed', 'they bled', 'it bled'].map((bleed) => `${till} ${bleed} {if distress}`)), 'killed himself', 'killed herself', 'killed themselves',
      // How people say it without the word.
      'better off without me', 'happier without me', 'better off dead', 'want to die {unless object}', 'wanna die {unless object}', 'want to be dead',
      'wish i was dead', 'wish i were dead', 'end it all', 'ending it all', 'no reason to live', 'nothing to live for', 'not worth living',
      "don't want to live", "don't want to be alive", "don't want to be here anymore", "don't want to wake up", 'dont want to live', 'dont want to be here anymore',
      'want it all to stop', 'want it all to end',
      // What an answer says to the speaker (session 41: "if you're planning to end your life, please call 988").
      ...['take', 'takes', 'taking', 'took', 'ending', 'ended', 'end'].map((end) => `${end} your own life`), 'end your life {unless insurance}', 'ending your life {unless insurance}', 'ended your life',
      'call 988', 'text 988', 'dial 988', 'call or text 988',
      // Session 45: the number after another ("call 999 or 988 now"), keyed by 988, and the euphemism of the feeds ("unaliving myself").
      '988 now', '988 lifeline', 'unalive', 'unaliving', 'unalived',
      // A way to die asked about (session 41: "is jumping from the 10th floor painless").
      'painless {if method}', 'least painful way', 'painless way to go',
      'cutting myself {unless object}', 'self harming', 'take my life', 'taking my life', 'saving up my pills', 'stockpiling pills',
      // Session 42: "i've been stockpiling my meds. just in case".
      ...['stockpiling', 'stockpiled', 'hoarding', 'saving up', 'stashing'].flatMap((keep) => ['my meds', 'my pills', 'my tablets', 'my medication', 'my sleeping pills', 'meds', 'tablets'].map((pills) => `${keep} ${pills}`)),
      // Said of the world without the speaker (session 42: "everyone would be better off if i just disappeared for good").
      ...['better off if i', 'better off if i just', 'happier if i', 'happier if i just', 'easier for everyone if i', 'easier for everyone if i just'].flatMap((off) =>
        ['disappeared', 'was gone', 'were gone', 'wasn t here', 'wasnt here', 'wasn t around', 'wasnt around', 'was dead', 'died', 'didn t exist', 'didnt exist', 'wasn t alive'].map((gone) => `${off} ${gone}`)),
      ...["don't", 'dont'].flatMap((dont) => ['in anything anymore', 'in anything any more', 'in living', 'in being alive', 'of living', 'of being alive'].map((what) => `${dont} see the point ${what}`)),
      'no point in living', 'no point being alive', ...OVERDOSE,
      // Low mood said without a death's word (session 46, the session-45 review's: "i feel hopeless at a level i can't explain", "haven't seen the point of anything"):
      // feeling hopeless, not being hopeless at something ("i'm hopeless at parking").
      ...['feel', 'feels', 'feeling', 'felt'].flatMap((feel) => [`${feel} hopeless`, `${feel} so hopeless`]),
      ...['see', 'seen', 'seeing', 'what s', 'whats'].map((see) => `${see} the point of anything`), 'the point of anything anymore', 'the point of anything any more',
      // Batch 13: "i feel so empty i can't see a way forward".
      'i feel empty', 'i feel so empty', 'feeling so empty', 'feel empty inside', 'feeling empty inside', ...['can t', 'cant', 'cannot'].map((cant) => `${cant} see a way forward`),
      // Hurting or burning oneself, said as a habit or an urge (session 39: "I keep hurting myself when things get bad"), not the clumsy: "keep hurting myself on the coffee table".
      'harming myself', 'harm myself',
      ...['hurting myself', 'hurt myself', 'burning myself', 'burn myself'].map((harm) => `{habit} ${harm} {unless clumsy}`),
      // What an assistant's answer points to.
      'samaritans', 'crisis line', 'crisis lines', 'crisis hotline', 'crisis text line',
      // The Samaritans' and Shout's numbers (session 42: "call 116 123", "text SHOUT to 85258").
      '116 123', '85258',
      // Cutting said by the blade and where, with a relapse's word (session 38: "relapsed, used the razor on my legs again"), not a shave.
      ...['razor', 'blade', 'blades'].flatMap((blade) => ['my', 'her', 'his'].flatMap((whose) => ['legs', 'arms', 'thighs', 'wrists', 'stomach'].map((part) => `${blade} on ${whose} ${part} {if relapse}`))),
      ...['cut', 'cutting', 'cuts on'].flatMap((cut) => ['my arms', 'my thighs', 'my wrists', 'my legs'].map((part) => `${cut} ${part} {if relapse}`)),
      // A goodbye posted, then silence: "my friend keeps posting goodbye messages and isn't answering his phone".
      ...['goodbye', 'goodbyes'].flatMap((goodbye) => ['messages', 'message', 'posts', 'post', 'texts', 'text', 'letters', 'letter', 'note', 'notes', 'videos', 'video'].map((what) => `${goodbye} ${what} {if unreachable}`)),
    ],
    ambiguous: [],
    confirmedBy: [],
    otherLanguages: {
      es: ['suicidio', 'suicidarme', 'suicidó', 'quitarme la vida', 'se quitó la vida', 'quitarse la vida', 'quitarte la vida', 'me quiero morir', 'quiero morirme', 'no quiero vivir', 'sobredosis', 'autolesión'],
      nl: ['zelfmoord', 'zelfdoding', 'suïcide {unless named story}', 'suïcidaal', 'overdosis', 'zelfbeschadiging', 'mezelf iets aandoen', 'wil niet meer leven'],
      de: ['selbstmord', 'suizid', 'suizidgedanken', 'das leben genommen', 'das leben nehmen', 'das leben zu nehmen', 'telefonseelsorge', 'nicht mehr leben', 'mich umbringen', 'mich ritzen', 'ritze mich', 'überdosis', 'selbstverletzung'],
      fr: ['suicide {unless named story}', 'suicidaire', 'me suicider', 'suicidé {unless named story}', "s'est suicidé", 'overdose', 'automutilation'],
      it: ['suicidio', 'suicidarmi', 'suicidato', 'suicidata', 'si è tolto la vita', 'overdose', 'autolesionismo'],
      // Session 45: "to pensando em me matar".
      pt: ['suicídio', 'suicidar', 'suicidou', 'tirou a própria vida', 'overdose', 'automutilação', 'pensando em me matar', 'pensei em me matar', 'quero me matar', 'tentou se matar', 'tentei me matar', 'quero morrer'],
      pl: ['samobójstwo', 'samobójstwa', 'samobójcze', 'samobójczej', 'odebrać sobie życie', 'odebrał sobie życie', 'odebrała sobie życie', 'zabić się', 'nie chcę żyć', 'samookaleczenie', 'tnę się', 'przedawkowanie', 'przedawkował', 'przedawkowała'],
      tr: ['intihar', 'intihara', 'kendimi öldürmek', 'kendimi öldüreceğim', 'yaşamak istemiyorum', 'canıma kıymak', 'canına kıydı', 'kendine zarar', 'kendime zarar', 'aşırı doz'],
      sv: ['självmord', 'ta livet av mig', 'tog livet av sig'],
      ru: ['самоубийство', 'покончить с собой', 'покончил с собой', 'покончила с собой', 'суицид', 'не хочу жить'],
      ro: ['sinucidere', 'sinucis', 'să mă sinucid', 'sa ma sinucid'],
      id: ['bunuh diri', 'ingin mati', 'pengen mati'],
      cs: ['sebevražda', 'sebevraždu', 'zabít se'],
      tl: ['nagpakamatay', 'magpakamatay'],
      hi: ['aatmhatya', 'khudkushi', 'marna chahta', 'marna chahti'],
    },
    cues: ['suicide', 'suicidal', 'die', 'dying', 'death', 'hopeless', 'overdose', 'harm', 'kill', 'killed', 'life', 'end', 'pills', 'worthless', 'cutting', 'disappeared', 'alive'],
    // None (after review, session 45): a person in danger outweighs an ad lost next to a novel or a history lesson.
    clears: [],
  },
  {
    name: 'abuse',
    description: 'domestic violence, abuse, assault, rape, abusive partner, victim, harassment',
    phrases: [
      'domestic violence', 'domestic abuse', 'abusive', 'sexual assault', 'rape', 'raped', 'molested', 'sexually abused', 'sexually assaulted', 'groped',
      'abusing me', 'abuses me', 'abused me', '{calling} abuse {unless luck}', 'emotional abuse', 'financial abuse', 'psychological abuse', 'verbal abuse', 'physical abuse', 'elder abuse', 'child abuse',
      // Marks on someone in care ("she has marks on her wrists"), a beating by strangers ("beat me up for my phone"; not "beat me up about it").
      ...['marks', 'bruises', 'bruising', 'scratches'].flatMap((marks) => ['her', 'his'].flatMap((whose) => ['wrists', 'wrist', 'neck', 'arms', 'arm', 'face', 'thighs', 'legs'].map((part) => `${marks} on ${whose} ${part}`))),
      'beat me up {unless scolding}', 'beat him up {unless scolding}', 'beat her up {unless scolding}', '{anyone} beaten up {unless scolding}', 'restraining order', 'protective order', 'coercive control', 'drink was spiked', 'spiked my drink', '{anyone} drugged me',
      // What a person does to the speaker: "my husband hits me", "my ex keeps threatening me".
      '{anyone} hits me {unless contact}', '{anyone} hit me {unless contact}', '{anyone} hitting me', '{anyone} beats me {unless contest}', '{anyone} beat me {unless contest}',
      '{anyone} beating me', '{anyone} slapped me', '{anyone} slaps me', '{anyone} punched me', '{anyone} punches me', '{anyone} kicked me {unless urging}',
      '{anyone} kicks me {unless urging}', '{anyone} choked me', '{anyone} chokes me', '{anyone} strangled me', '{anyone} pushed me {unless urging}', '{anyone} shoved me',
      // Touched, of a child or another, with fear or a report (session 42: "my 10yo said her swim coach touches her in the changing room ... report it to the police").
      ...['touches', 'touched', 'touching'].flatMap((touch) => ['her', 'him', 'them'].map((whom) => `{anyone} ${touch} ${whom} {if fear}`)),
      'touched inappropriately', 'touches her inappropriately', 'touches him inappropriately', 'touching her inappropriately', 'touching him inappropriately', 'touched her inappropriately', 'touched him inappropriately',
      // Intimate images used against someone (session 42: "someone is sharing my nudes online to blackmail me").
      'my nudes', 'sextortion', 'revenge porn', 'intimate images',
      // A person's violence said plainly (session 42: "my ex still has a key and he's been violent before").
      // (Keyed by "violent": "he's been violent", "he is violent", "she has been violent" through the fillers.)
      ...['violent', 'gets violent', 'turns violent', 'turned violent', 'became violent'].map((violent) => `{anyone} ${violent}`),
      'violent towards me', 'violent toward me', 'violent with me',
      '{anyone} threatens me', '{anyone} threatened me', '{anyone} threatening me', '{anyone} touched me', '{anyone} touches me', 'threatened to kill me', 'threatens to kill me',
      '{anyone} grabbing me', '{anyone} grabbed me {unless treat}', '{anyone} grabs me {unless treat}',
      // A threat of harm, in each tense (session 40: "my ex says he'll hurt me if I see anyone else"); killing only with fear ("my mum will kill me if I'm late").
      // ("He is going to" reads "is" as a filler: a phrase keyed by "is" would be tried at every "is" of every serve.)
      ...['ll', 'will', 'would', 'd', 'going to', 'gonna', 'threatened to', 'threatens to', 'threatening to'].flatMap((will) => [
        ...['hurt me', 'stab me', 'shoot me', 'strangle me', 'beat me up {unless scolding}', 'hit me {unless contact}'].map((harm) => `{anyone} ${will} ${harm}`), 
        // ("threatened to kill me" is a phrase alone.)
        ...(will.startsWith('threat') ? [] : [`{anyone} ${will} kill me {if fear}`]),
      ]),
      // An adult who asks a child for secrecy (session 40: "an older man who tells her to keep it secret").
      'older man {if secrecy}', 'older men {if secrecy}', 'grown man {if secrecy}', 'being groomed', 'groomed online', 'online grooming',
      // Violence aimed near the speaker and being followed, with a word of fear (session 39: "he punches the wall next to my head"; not a teenager's temper).
      ...['punches', 'punched', 'hits', 'kicks', 'kicked'].flatMap((hit) => ['the wall', 'walls', 'the door', 'doors'].map((what) => `{anyone} ${hit} ${what} {if fear}`)),
      '{anyone} throws things at me', '{anyone} threw things at me', 'following me home {if fear}', 'followed me home {if fear}', 'follows me home {if fear}',
      'stalking me', 'stalked me', 'being stalked', '{calling} stalking', 'stalking helpline',
      // Robbed or beaten by strangers: "pulled a gun on me and took my car", "got jumped outside the chippy".
      // Knife crime, said as the news does (session 41: "there was a stabbing outside my kid's school"), not a stabbing pain nor a betrayal.
      'a stabbing {unless pain}', 'fatal stabbing', 'stabbings', 'knife attack', 'knife attacks', 'knife crime', 'was stabbed {unless pain}', 'were stabbed', 'got stabbed {unless pain}', 'been stabbed {unless pain}',
      'fatal shooting', 'drive by shooting', 'drive-by shooting',
      // Harm done to others the speaker hears of (session 41: "the kids next door are being beaten, I hear screaming every night").
      '{anyone} being beaten {unless game}', 'being beaten {unless game} {if fear}', '{anyone} being abused', '{anyone} being hurt {if fear}',
      'pulled a gun on', 'pulled a knife on', 'gunpoint', 'knifepoint', 'carjacked', 'carjacking', 'mugged {unless fooled}', 'got jumped', 'was jumped', 'were jumped',
      // Glassed in a fight (session 45: "got glassed in a pub fight, 14 stitches"), keyed by "glassed": not a glassed-in porch.
      ...['me', 'him', 'her', 'them', 'in a pub', 'in the pub', 'in a bar', 'in the bar', 'in a club', 'in a fight', 'in the face', 'outside'].map((where) => `glassed ${where}`),
      // Someone in care hurt: "she has bruises they can't explain".
      'unexplained bruises', 'unexplained bruising', 'bruises they can t explain', 'bruises they cant explain', 'bruises nobody can explain',
      // What an assistant's answer points to.
      'childline', 'childhelp', 'nspcc', 'rainn', 'napac', 'victim support', 'criminal injuries', 'safeguarding team', 'safeguarding referral',
    ],
    ambiguous: [],
    confirmedBy: [],
    otherLanguages: {
      es: ['violencia doméstica', 'violencia de género', 'maltrato', 'agresión sexual', 'abuso sexual', 'violada', 'violado', 'me pega', 'me pegó', 'me golpea', 'me golpeó', 'me maltrata', 'sufrió abusos', 'sufrió abuso', 'fue abusada', 'fue abusado', 'abusó de ella', 'abusó de él', 'abusó de mí', 'abusaron de'],
      nl: ['huiselijk geweld', 'mishandeld', 'mishandeling', 'seksueel misbruik', 'verkracht', 'verkrachting', 'aanranding', 'slaat me', 'slaat mij'],
      de: ['häusliche gewalt', 'misshandlung', 'sexueller missbrauch', 'sexuelle gewalt', 'vergewaltigung', 'vergewaltigt', 'schlägt mich', 'mich geschlagen'],
      fr: ['violence conjugale', 'violences conjugales', 'violence domestique', 'agression sexuelle', 'abus sexuel', 'violée', 'viol', 'me frappe', 'il me bat'],
      it: ['violenza domestica', 'maltrattamenti', 'violenza sessuale', 'abuso sessuale', 'stupro', 'stuprata', 'ha abusato di', 'abusata', 'mi picchia', 'molestata'],
      pt: ['violência doméstica', 'maus tratos', 'agressão sexual', 'abuso sexual', 'estupro', 'estuprada',
        // Abuse said by its verb (session 41: "minha filha sofreu abuso de um professor"), in Portuguese and Spanish alike.
        'sofreu abuso', 'sofreu abusos', 'foi abusada', 'foi abusado', 'abusou dela', 'abusou dele', 'abusou de mim', 'me bate', 'me agride', 'me agrediu'],
      pl: ['przemoc domowa', 'przemocy domowej', 'przemoc w rodzinie', 'bije mnie', 'pobił mnie', 'zgwałcona', 'zgwałcił', 'gwałt', 'molestowanie', 'molestowana', 'molestował', 'wykorzystywanie seksualne'],
      tr: ['aile içi şiddet', 'tecavüz', 'tecavüze', 'taciz', 'tacize', 'istismar', 'istismara', 'beni dövüyor', 'beni dövdü', 'şiddet görüyorum'],
    },
    cues: [
      'abuse', 'abused', 'abusive', 'assault', 'assaulted', 'rape', 'raped', 'violence', 'violent', 'victim', 'harassment', 'harassed', 'hit', 'hits', 'beat', 'beats',
      'threatened', 'threatening', 'stalking', 'pushed', 'slapped', 'punched', 'touched', 'drugged', 'scared', 'afraid',
    ],
    clears: [],
  },
  {
    // Session 41 (batch 10: a bottle of vodka a day, meth, heroin, savings lost gambling). Judged by its phrases alone, without a
    // description: the neighbours of its words are drinks, bars and betting, what many ads are about ("craft beer pairing for a BBQ").
    name: 'addiction',
    phrases: [
      'heroin', 'fentanyl', 'methamphetamine', 'crystal meth', 'crack cocaine', 'oxycontin', 'oxycodone', 'narcan', 'naloxone', 'alcoholism', 'alcohol dependence', 'alcohol dependency',
      // Street drugs taken, any drug one is hooked on ("on painkillers after surgery", "using painkillers for my back" are served).
      // Keyed by the drug (`{taking}`), since "on" and "using" are in most everyday bodies.
      ...['meth', 'cocaine', 'crack', 'ketamine'].map((drug) => `{taking} ${drug}`), 'using drugs', 'injecting drugs',
      ...['hooked on', 'addicted to', 'addiction to'].flatMap((hooked) => ['meth', 'cocaine', 'crack', 'opioids', 'painkillers', 'drugs', 'ketamine', 'benzos', 'xanax', 'alcohol', 'gambling', 'pills'].map((drug) => `${hooked} ${drug}`)),
      ...['drug', 'drugs', 'alcohol', 'gambling', 'opioid', 'opiate', 'painkiller', 'cocaine', 'meth'].flatMap((what) => [`${what} addiction`, `${what} addict`, `${what} addicts`, ...(what === 'gambling' ? [] : [`${what} problem`])]), 'crack addiction', 'crack addict',
      // "An alcoholic" is a person, not "an alcoholic drink".
      'an alcoholic {unless beverage}', 'drinking problem', 'problem gambling', 'problem gambler', 'compulsive gambling',
      'gamblers anonymous', 'alcoholics anonymous', 'narcotics anonymous', 'nar anon', 'al anon', 'alanon', 'drug rehab', 'alcohol rehab', 'supervised detox', 'medical detox', 'alcohol withdrawal', 'opioid withdrawal', 'opiate withdrawal',
      // Session 42: "how to do a ketamine detox at home", "can't get through a day without pills anymore".
      ...['ketamine', 'meth', 'cocaine', 'crack', 'opioid', 'opiate', 'benzo', 'benzodiazepine', 'xanax', 'alcohol', 'drug', 'drugs', 'oxy'].flatMap((drug) => [`${drug} detox`, `${drug} dependence`, `${drug} dependency`]),
      ...['through a day without', 'through the day without', 'go a day without', 'function without'].flatMap((without) =>
        ['pills anymore', 'painkillers', 'a drink', 'drinking', 'booze', 'alcohol', 'vodka', 'using', 'coke', 'oxy', 'my fix'].map((what) => `${without} ${what}`)),
      'drug dealer', 'to buy drugs', 'intervention for my {relative}', 'intervention for our {relative}',
      // Drink by the bottle a day (session 41: "a bottle of vodka a day and my hands shake in the mornings").
      ...['vodka', 'wine', 'whisky', 'whiskey', 'gin', 'rum', 'spirits', 'brandy'].flatMap((drink) => ['a day', 'every day', 'a night', 'every night'].map((when) => `bottle of ${drink} ${when}`)),
      // (Gambling debts and a gambling helpline are this, confirmed.)
      'cold turkey {if drugs}', 'gambling {if stakes}',
      // Session 45: the services an answer points to ("a local drug service can help him"), a recovery counted ("relapsed after 2 years sober"),
      // a drug come off ("how do i come off xanax"), its pipe, and the opioid substitutes.
      'drug service', 'drug services', 'drugs service', 'drug support', 'drug and alcohol service', 'drug and alcohol services', 'substance misuse', 'substance abuse', 'substance use disorder',
      // (Keyed by "sober": "week" and "days" are in many everyday bodies.)
      // (After review: not Dry January's "two weeks sober" nor a "field sobriety test".)
      '{not with abstaining} {span} sober', 'my sobriety', 'his sobriety', 'her sobriety', 'sobriety date', 'in sobriety',
      ...['come off', 'coming off', 'withdrawal from', 'withdrawing from', 'detox from', 'detoxing from'].flatMap((off) =>
        // (Heroin, oxycodone, methadone and subutex are phrases alone.)
        ['xanax', 'benzos', 'benzodiazepines', 'oxy', 'opioids', 'opiates', 'ketamine', 'spice', 'crack', 'meth', 'cocaine'].map((drug) => `${off} ${drug}`)),
      'crack pipe', 'crack pipes', 'meth pipe', 'meth pipes', 'crack den', 'needle exchange', 'methadone', 'subutex',
    ],
    ambiguous: [],
    confirmedBy: [],
    otherLanguages: {
      es: ['adicción a las drogas', 'adicción al alcohol', 'adicción al juego', 'adicto a las drogas', 'adicta a las drogas', 'drogadicto', 'drogadicta', 'alcoholismo', 'alcohólicos anónimos', 'ludopatía'],
      de: ['drogensucht', 'alkoholsucht', 'spielsucht', 'heroinsüchtig', 'drogenabhängig', 'alkoholabhängig', 'alkoholiker', 'alkoholikerin', 'entzugserscheinungen'],
      fr: ['alcoolisme', 'toxicomanie', 'toxicomane', 'addiction à la drogue', 'addiction aux jeux'],
      it: ['alcolismo', 'alcolista', 'tossicodipendente', 'tossicodipendenza', 'dipendenza dalla droga', 'dipendenza dal gioco', 'ludopatia'],
      pt: ['alcoolismo', 'alcoólatra', 'viciado em drogas', 'viciada em drogas', 'dependência química', 'vício em drogas', 'vício em jogo'],
      nl: ['verslaafd aan drugs', 'verslaafd aan alcohol', 'drugsverslaving', 'alcoholverslaving', 'gokverslaving', 'alcoholist', 'alcoholisme'],
      pl: [...['uzależnienie od', 'uzależniony od', 'uzależniona od'].flatMap((hooked) => [`${hooked} alkoholu`, `${hooked} narkotyków`, `${hooked} hazardu`]), 'alkoholizm', 'alkoholik', 'alkoholiczka', 'narkoman', 'narkomanka', 'odwyk', 'odwyku'],
      tr: ['alkolizm', 'alkolik', 'eroin', 'uyuşturucu bağımlısı', 'uyuşturucu bağımlılığı', 'alkol bağımlılığı', 'kumar bağımlılığı'],
    },
    cues: [],
    clears: [],
  },
];

/** Similarity of a conversation to a topic's description at which the topic vetoes the ad; chosen on the evaluation set. */
export const BRAND_SAFETY_MIN_SIMILARITY = 0.4;
