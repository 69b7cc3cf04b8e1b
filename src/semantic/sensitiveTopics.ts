/**
 * Conversations no ad should appear next to. Each topic is judged two ways:
 *
 * - any of its phrases (whole words, as keywords match), in English or in one of the other
 *   languages listed, vetoes the ad. The phrases are the unambiguous ones; words with everyday
 *   senses ("died" of a phone battery, "crash" of an app) are left to the similarity;
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
  description: string;
  /** English phrases; `{relative}` stands for any of RELATIVES, `{named relative}` for NAMED_RELATIVES (see below). */
  phrases: string[];
  /** Phrases in the other languages the service is most asked in: as unambiguous, and judged whatever the serve's `language`. */
  otherLanguages: Record<'es' | 'de' | 'fr' | 'it' | 'pt', string[]>;
  /** Words of which the conversation must have one (of any topic's) for the similarity to veto. */
  cues: string[];
  /** Phrases that say the topic's harm did not happen: with one, the similarity does not veto (a phrase still does). */
  clears: string[];
}

/**
 * People a conversation names when one of them died: "lost my dad", "RIP grandpa". A phrase that
 * ends with one is not followed by 's (a possessive: "lost my dad's watch", "rip my sister's CDs").
 * Pets are left out of "lost my ..." (a lost dog is more often a missing one) but not of "RIP"; so
 * is "baby" ("lost my baby weight"), but for "lost our baby".
 */
export const RELATIVES = [
  'mum', 'mom', 'mother', 'mummy', 'mommy', 'mama', 'dad', 'father', 'daddy', 'papa', 'parents',
  'husband', 'wife', 'partner', 'fiance', 'fiancee', 'boyfriend', 'girlfriend',
  'son', 'daughter', 'child', 'brother', 'sister', 'twin',
  'grandma', 'grandpa', 'grandmother', 'grandfather', 'granny', 'grandad', 'granddad', 'nan', 'nana', 'gran',
  'uncle', 'aunt', 'auntie', 'cousin', 'nephew', 'niece', 'stepdad', 'stepmom', 'stepmum', 'best friend',
];
/** Those also named without "my" or "our": "we lost mum", "RIP dad". */
export const NAMED_RELATIVES = ['mum', 'mom', 'mama', 'dad', 'papa', 'grandma', 'grandpa', 'granny', 'grandad', 'granddad', 'nan', 'nana', 'gran'];
/** Pets, for "RIP" only. */
const PETS = ['my dog', 'my cat', 'my puppy', 'my kitty', 'our dog', 'our cat'];

export const SENSITIVE_TOPICS: SensitiveTopic[] = [
  {
    name: 'bereavement',
    description: 'death of a loved one or a pet, grief, mourning, funeral, passed away, died, condolences, bereavement, grieving widow',
    phrases: [
      'passed away', 'funeral', 'bereavement', 'bereaved', 'condolences', 'grieving', 'mourning', 'put to sleep', 'euthanized', 'miscarriage', 'stillborn',
      'no longer with us', 'rest in peace', 'in loving memory', 'memorial service', 'obituary', 'cremation', 'cremated', 'widowed', 'stillbirth', 'born sleeping',
      "'s death", 'death of my', 'death of our', 'lost our baby',
      'lost my {relative}', 'lost our {relative}', 'lost {named relative}', 'late {relative}',
      'rip my {relative}', 'rip our {relative}', 'rip {named relative}', ...PETS.map((pet) => `rip ${pet}`),
    ],
    otherLanguages: {
      es: ['falleció', 'fallecido', 'fallecida', 'fallecimiento', 'murió', 'velorio', 'entierro', 'funeral', 'luto', 'pésame', 'descanse en paz'],
      de: ['gestorben', 'verstorben', 'verstorbene', 'verstorbenen', 'verstarb', 'beerdigung', 'beisetzung', 'trauerfeier', 'trauer', 'beileid', 'ruhe in frieden'],
      fr: ['décédé', 'décédée', 'décès', 'obsèques', 'enterrement', 'funérailles', 'deuil', 'condoléances', 'repose en paix', 'père est mort', 'mère est morte', 'mari est mort', 'femme est morte', 'fils est mort', 'fille est morte', 'frère est mort', 'sœur est morte', 'soeur est morte'],
      it: ['deceduto', 'deceduta', 'decesso', 'funerale', 'lutto', 'condoglianze', 'riposa in pace', 'padre è morto', 'madre è morta', 'marito è morto', 'moglie è morta', 'figlio è morto', 'figlia è morta', 'fratello è morto', 'sorella è morta', 'nonno è morto', 'nonna è morta'],
      pt: ['faleceu', 'falecido', 'falecida', 'falecimento', 'velório', 'enterro', 'funeral', 'luto', 'pêsames', 'descanse em paz', 'pai morreu', 'mãe morreu', 'marido morreu', 'esposa morreu', 'filho morreu', 'filha morreu', 'irmão morreu', 'irmã morreu', 'avô morreu', 'avó morreu'],
    },
    cues: [
      'died', 'die', 'dies', 'dead', 'death', 'deceased', 'passed', 'passing', 'lost', 'loss', 'losing', 'late', 'killed', 'gone',
      'grief', 'grieve', 'grieving', 'mourn', 'mourning', 'funeral', 'buried', 'bury', 'burial', 'ashes', 'memorial', 'widow', 'widower',
      'condolences', 'sympathy', 'rip', 'peace', 'peacefully', 'heaven', 'goodbye', 'euthanasia', 'euthanized',
    ],
    clears: [],
  },
  {
    name: 'accident',
    description: 'serious accident, car crash, injured, killed, hospital emergency, ambulance, collision, victims, fatal injuries',
    phrases: [
      'car crash', 'car accident', 'fatal accident', 'hit by a car', 'seriously injured', 'critically injured', 'plane crash',
      'hit and run', 'drunk driver', 'head on collision', 'motorcycle accident', 'train crash',
    ],
    otherLanguages: {
      es: ['accidente de tráfico', 'accidente de coche', 'accidente de carro', 'accidente mortal', 'gravemente herido', 'gravemente herida', 'atropellado', 'atropellada'],
      de: ['autounfall', 'verkehrsunfall', 'tödlich verunglückt', 'tödlichen unfall', 'schwer verletzt', 'ums leben gekommen'],
      fr: ['accident de voiture', 'accident de la route', 'accident mortel', 'grièvement blessé', 'grièvement blessée', 'gravement blessé', 'renversé par une voiture'],
      it: ['incidente stradale', 'incidente mortale', "incidente d'auto", 'gravemente ferito', 'gravemente ferita'],
      pt: ['acidente de carro', 'acidente de trânsito', 'acidente fatal', 'gravemente ferido', 'gravemente ferida', 'atropelado', 'atropelada'],
    },
    cues: [
      'accident', 'accidents', 'crash', 'crashed', 'collision', 'collided', 'wreck', 'injured', 'injury', 'injuries', 'hurt', 'killed',
      'fatal', 'died', 'dead', 'ambulance', 'paramedics', 'hospital', 'emergency', 'icu', 'victim', 'victims', 'trauma', 'fracture', 'fractured',
    ],
    clears: [
      'nobody hurt', 'nobody was hurt', 'nobody got hurt', 'no one hurt', 'no one was hurt', 'no one got hurt', 'noone was hurt',
      'nobody injured', 'nobody was injured', 'no one injured', 'no one was injured', 'no injuries', 'without injuries',
      'everyone is fine', 'everyone is ok', 'everyone is okay', 'everybody is fine', 'everybody is ok', 'everyone s fine', 'everyone s ok',
      'unhurt', 'uninjured', 'wasn t hurt', 'weren t hurt', 'not hurt', 'not injured',
    ],
  },
  {
    name: 'disaster',
    description: 'natural disaster, earthquake, flood, hurricane, wildfire, tsunami, evacuation, destroyed homes, victims, relief',
    phrases: [
      'earthquake', 'tsunami', 'hurricane', 'wildfire', 'flooded', 'evacuated', 'evacuation order', 'tornado', 'mass shooting', 'terrorist attack',
      'burned down', 'burnt down', 'house fire', 'flash flood',
    ],
    otherLanguages: {
      es: ['terremoto', 'sismo', 'huracán', 'inundación', 'inundaciones', 'incendio forestal', 'tsunami', 'evacuados', 'atentado terrorista', 'tiroteo masivo'],
      de: ['erdbeben', 'überschwemmung', 'hochwasser', 'wirbelsturm', 'waldbrand', 'tsunami', 'evakuiert', 'terroranschlag', 'amoklauf'],
      fr: ['tremblement de terre', 'séisme', 'inondation', 'inondations', 'ouragan', 'incendie de forêt', 'tsunami', 'évacués', 'attentat'],
      it: ['terremoto', 'alluvione', 'inondazione', 'uragano', 'incendio boschivo', 'tsunami', 'evacuati', 'attentato'],
      pt: ['terremoto', 'sismo', 'enchente', 'inundação', 'furacão', 'incêndio florestal', 'tsunami', 'desabrigados', 'atentado'],
    },
    cues: [
      'earthquake', 'quake', 'flood', 'floods', 'flooding', 'hurricane', 'storm', 'tornado', 'wildfire', 'fire', 'fires', 'burned', 'burnt', 'tsunami',
      'evacuate', 'evacuated', 'evacuation', 'destroyed', 'disaster', 'victims', 'relief', 'shelter', 'homeless', 'shooting', 'attack', 'bombing',
    ],
    clears: [],
  },
  {
    name: 'serious diagnosis',
    description: 'diagnosed with cancer, tumor, terminal illness, chemotherapy, oncologist, malignant, prognosis, leukemia, stroke',
    phrases: [
      'diagnosed with', 'cancer', 'tumor', 'tumour', 'terminal illness', 'chemotherapy', 'chemo', 'oncologist', 'malignant', 'leukemia', 'metastatic', 'palliative',
      'hiv', 'dementia', 'alzheimer', 'alzheimers', 'parkinson', 'parkinsons', 'multiple sclerosis', 'motor neurone disease', 'motor neuron disease',
      'lymphoma', 'melanoma', 'carcinoma', 'sarcoma', 'biopsy', 'mastectomy', 'radiotherapy',
    ],
    otherLanguages: {
      es: ['cáncer', 'tumor', 'quimioterapia', 'diagnosticado con', 'diagnosticada con', 'enfermedad terminal', 'leucemia', 'metástasis', 'cuidados paliativos', 'vih'],
      de: ['krebs', 'krebsdiagnose', 'tumor', 'chemotherapie', 'diagnostiziert', 'unheilbar', 'leukämie', 'metastasen', 'palliativ', 'hiv'],
      fr: ['cancer', 'tumeur', 'chimiothérapie', 'diagnostiqué', 'diagnostiquée', 'maladie incurable', 'leucémie', 'métastases', 'soins palliatifs', 'vih'],
      it: ['cancro', 'tumore', 'chemioterapia', 'diagnosticato', 'diagnosticata', 'malattia terminale', 'leucemia', 'metastasi', 'cure palliative', 'hiv'],
      pt: ['câncer', 'cancro', 'tumor', 'quimioterapia', 'diagnosticado com', 'diagnosticada com', 'doença terminal', 'leucemia', 'metástase', 'cuidados paliativos', 'hiv'],
    },
    cues: [
      'diagnosed', 'diagnosis', 'cancer', 'tumor', 'tumour', 'terminal', 'chemo', 'chemotherapy', 'oncologist', 'malignant', 'prognosis', 'leukemia',
      'stroke', 'biopsy', 'scan', 'results', 'positive', 'stage', 'illness', 'disease', 'treatment', 'hospice', 'palliative',
    ],
    clears: [],
  },
  {
    name: 'self-harm',
    description: 'suicide, suicidal thoughts, self harm, want to die, hopeless, overdose',
    phrases: [
      'suicide', 'suicidal', 'self harm', 'self-harm', 'kill myself', 'end my life', 'overdose',
      'took his own life', 'took her own life', 'took their own life', 'take my own life', 'killed himself', 'killed herself', 'killed themselves',
    ],
    otherLanguages: {
      es: ['suicidio', 'suicidarme', 'suicidó', 'quitarme la vida', 'se quitó la vida', 'sobredosis', 'autolesión'],
      de: ['selbstmord', 'suizid', 'suizidgedanken', 'das leben genommen', 'überdosis', 'selbstverletzung'],
      fr: ['suicide', 'suicidaire', 'me suicider', 'suicidé', "s'est suicidé", 'overdose', 'automutilation'],
      it: ['suicidio', 'suicidarmi', 'suicidato', 'suicidata', 'si è tolto la vita', 'overdose', 'autolesionismo'],
      pt: ['suicídio', 'suicidar', 'suicidou', 'tirou a própria vida', 'overdose', 'automutilação'],
    },
    cues: ['suicide', 'suicidal', 'die', 'dying', 'death', 'hopeless', 'overdose', 'harm', 'kill', 'killed', 'life', 'end', 'pills', 'worthless'],
    clears: [],
  },
  {
    name: 'abuse',
    description: 'domestic violence, abuse, assault, rape, abusive partner, victim, harassment',
    phrases: ['domestic violence', 'abusive', 'sexual assault', 'rape', 'raped', 'molested'],
    otherLanguages: {
      es: ['violencia doméstica', 'violencia de género', 'maltrato', 'agresión sexual', 'abuso sexual', 'violada', 'violado'],
      de: ['häusliche gewalt', 'misshandlung', 'sexueller missbrauch', 'sexuelle gewalt', 'vergewaltigung', 'vergewaltigt'],
      fr: ['violence conjugale', 'violences conjugales', 'violence domestique', 'agression sexuelle', 'abus sexuel', 'violée', 'viol'],
      it: ['violenza domestica', 'maltrattamenti', 'violenza sessuale', 'abuso sessuale', 'stupro', 'stuprata'],
      pt: ['violência doméstica', 'maus tratos', 'agressão sexual', 'abuso sexual', 'estupro', 'estuprada'],
    },
    cues: ['abuse', 'abused', 'abusive', 'assault', 'assaulted', 'rape', 'raped', 'violence', 'violent', 'victim', 'harassment', 'harassed', 'hit', 'hits', 'beat', 'beats', 'threatened', 'stalking'],
    clears: [],
  },
];

/** Similarity of a conversation to a topic's description at which the topic vetoes the ad; chosen on the evaluation set. */
export const BRAND_SAFETY_MIN_SIMILARITY = 0.4;
