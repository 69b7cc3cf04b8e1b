import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BrandSafety } from '../../src/semantic/brandSafety.js';
import { SemanticModel } from '../../src/semantic/semanticModel.js';
import { writeWordVectorsIfMissing } from '../../src/semantic/buildWordVectors.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from '../../src/semantic/wordVectorsFile.js';
import { WordScan } from '../../src/serving/contextWords.js';
import { packageRoot } from '../../src/packageRoot.js';

writeWordVectorsIfMissing();
const model = new SemanticModel(readWordVectors(DEFAULT_WORD_VECTORS_PATH)!);
const brandSafety = new BrandSafety(model);

/** The verdict a serve gets on this query, with the answer the tester's serves had. */
function verdict(query: string) {
  const [q, r] = [new WordScan(), new WordScan()];
  q.scan(query);
  r.scan('Here is some information.');
  return brandSafety.veto([q, r], model.embedConversation(q, r));
}

/** bench/semantic/brandSafetyCases.txt: `expect | source | query`. */
const cases = readFileSync(path.join(packageRoot, 'bench', 'semantic', 'brandSafetyCases.txt'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  .map((line) => {
    const [expected, source, query] = line.split(' | ');
    return { expected: expected!, source: source!, query: query! };
  });

describe('brand safety: the wordings the hands-on test found (try32 M2)', () => {
  for (const { expected, query } of cases.filter((c) => c.source === 'try32')) {
    it(`${expected === 'veto' ? 'vetoes' : 'serves'}: ${query}`, () => {
      if (expected === 'veto') expect(verdict(query)).toBeDefined();
      else expect(verdict(query)).toBeUndefined();
    });
  }
});

describe('brand safety: the wordings session 32 left wrong (own2 rows)', () => {
  // Wrong on main before session 33: "uncle passed", "say goodbye to our cat", "stage three", "miscarried",
  // "better off without me", "my husband hits me"; "lost my father-in-law's drill", "hurricane season sale".
  for (const { expected, query } of cases.filter((c) => c.source === 'own2')) {
    it(`${expected === 'veto' ? 'vetoes' : 'serves'}: ${query}`, () => {
      if (expected === 'veto') expect(verdict(query)).toBeDefined();
      else expect(verdict(query)).toBeUndefined();
    });
  }
});

describe('brand safety: a person or pet, then what happened to them', () => {
  it('reads a relative or pet followed by a death as one, with words between, not when they passed something', () => {
    for (const query of ['my nan passed on sunday, what should I wear?', 'our cat passed in the night', 'since dad died I cannot sleep', 'my mother-in-law has just died', "grandad didn't make it through the night"]) {
      expect(verdict(query), query).toMatchObject({ topic: 'bereavement', by: 'phrase' });
    }
    for (const query of ['my son passed his driving test, what car should he get?', 'my daughter passed the bar exam, gift ideas?', 'my sister passed out from the heat, best fan?', "my dad didn't make it to the game, can I get a refund?", "my dad's laptop died, which one should I buy?"]) {
      expect(verdict(query), query).toBeUndefined();
    }
  });

  it('reads someone hitting, threatening or touching the speaker as abuse, not a gym, a game or a message', () => {
    for (const query of ['my husband hits me when he drinks', 'my ex keeps threatening me at work', 'he slapped me again last night', 'my stepdad touched me when I was little']) {
      expect(verdict(query), query).toMatchObject({ topic: 'abuse', by: 'phrase' });
    }
    for (const query of ['my husband hits the gym every morning, which smartwatch tracks weightlifting best?', 'my son beat me at chess again, which chess set?', 'my sister hit me up about a trip to Lisbon']) {
      expect(verdict(query), query).toBeUndefined();
    }
  });

  it("does not read a possessive after an in-law as the in-law's death", () => {
    expect(verdict("lost my sister-in-law's umbrella, which one should I buy?")).toBeUndefined();
    expect(verdict('we lost my father-in-law in june, how do we sell his car?')).toMatchObject({ topic: 'bereavement', by: 'phrase' });
  });
});

describe('brand safety: ambiguous phrases need a confirming word', () => {
  it('vetoes a disaster named with its harm, not a sale or a kit', () => {
    expect(verdict('the hurricane destroyed our house, where can we stay?')).toMatchObject({ topic: 'disaster', by: 'phrase' });
    expect(verdict('my family survived the quake but lost their home')).toMatchObject({ topic: 'disaster', by: 'phrase' });
    expect(verdict('what should go in an earthquake kit for our flat?')).toBeUndefined();
    // Its name alone is still a cue for the similarity, which can veto it: not a phrase.
    expect(verdict('are hurricane shutters worth it for a house in Florida?')).not.toMatchObject({ by: 'phrase' });
  });

  it('vetoes a cancer stage next to a doctor or results, not a stage of a race', () => {
    expect(verdict('the doctor says it is stage four, what now?')).toMatchObject({ topic: 'serious diagnosis', by: 'phrase' });
    expect(verdict('where can I watch stage three of the Tour de France?')).toBeUndefined();
    expect(verdict('which lounge is best at the terminal in Stansted?')).toBeUndefined();
  });
});

describe('brand safety: phrases', () => {
  it('reads "lost my <relative>" and "RIP <relative>" as a death, not when the relative is a possessive', () => {
    expect(verdict('we lost our grandfather in june, how do we sell his car?')).toMatchObject({ topic: 'bereavement', by: 'phrase' });
    expect(verdict('rip my sister. what should I wear to the service?')).toMatchObject({ topic: 'bereavement', by: 'phrase' });
    expect(verdict("I lost my brother's charger, which one fits his phone?")).toBeUndefined();
    expect(verdict("how do I rip my dad's vinyl to mp3?")).toBeUndefined();
  });

  it('matches the other languages with or without their accents', () => {
    expect(verdict('mi abuelo fallecio anoche')).toMatchObject({ topic: 'bereavement', by: 'phrase' });
    expect(verdict('le décès de ma tante')).toMatchObject({ topic: 'bereavement', by: 'phrase' });
    expect(verdict('le deces de ma tante')).toMatchObject({ topic: 'bereavement', by: 'phrase' });
    // Turkish ı and Polish ł: as written, with ı and ł read as i and l and the other marks kept, and with neither (only such phrases get other spellings).
    for (const text of ['kızım öldü dün', 'kizim öldü dün', 'kizim oldu dun', 'babam zmarł wczoraj', 'babam zmarl wczoraj']) expect(verdict(text)).toMatchObject({ topic: 'bereavement', by: 'phrase' });
  });
});

describe('brand safety: what the similarity needs besides a close vector', () => {
  it('vetoes by similarity only a conversation with a cue of some sensitive topic', () => {
    // Close to mourning (flowers, a mother) but naming nothing sensitive: 0.52 on main.
    expect(verdict('flowers for mother\'s day')).toBeUndefined();
    // The same neighbourhood with a cue: vetoed by the similarity, as before.
    expect(verdict('my grandmother went peacefully in her sleep on sunday, how do I close her bank account?')).toMatchObject({ by: 'similarity' });
  });

  it('does not veto an accident by similarity when the conversation says nobody was hurt, but a phrase still does', () => {
    expect(verdict('car insurance after a fender bender, nobody hurt')).toBeUndefined();
    expect(verdict('car insurance after a fender bender, two people hurt')).toMatchObject({ topic: 'accident', by: 'similarity' });
    expect(verdict('car insurance after a car accident, nobody hurt')).toMatchObject({ topic: 'accident', by: 'phrase' });
  });
});

describe('brand safety: the everyday senses session 34 guards, and the sensitive ones beside them', () => {
  it('reads "cancer" after a word of prevention or before a star sign as no diagnosis, and as one otherwise', () => {
    for (const query of ['does SPF protect against skin cancer?', 'what is a good gift for a cancer zodiac sign?', 'is it cancer season yet? my horoscope says so']) expect(verdict(query), query).toBeUndefined();
    for (const query of ['the risk of my cancer coming back scares me', 'my son Leo has cancer, what should he eat?', "mum's fight against cancer is getting harder", 'my dad has skin cancer, which sunscreen now?']) {
      expect(verdict(query), query).toMatchObject({ topic: 'serious diagnosis', by: 'phrase' });
    }
  });

  it('reads a relative lost at a place as found again, and lost at a time or in an event as a death', () => {
    expect(verdict('lost my son in the crowd at the fair, which kids GPS tracker?')).toBeUndefined();
    for (const query of ['I lost my dad at the weekend, how do I cope?', 'we lost my husband in the accident', 'she lost her husband to covid']) expect(verdict(query), query).toMatchObject({ topic: 'bereavement', by: 'phrase' });
  });

  it('reads ALS and MS after "has" or "with" as a diagnosis, MS only with a medical word, not Microsoft', () => {
    expect(verdict('my wife has ALS')).toMatchObject({ topic: 'serious diagnosis', by: 'phrase' });
    expect(verdict('my daughter has MS and the neurologist wants a new treatment')).toMatchObject({ topic: 'serious diagnosis', by: 'phrase' });
    expect(verdict('I have MS Teams and it keeps freezing, which laptop?')).toBeUndefined();
  });

  it('reads taking a bunch of pills as an overdose and a flooded town as a disaster, not daily pills or a mortgage', () => {
    expect(verdict('I took a handful of tablets and feel strange')).toMatchObject({ topic: 'self-harm', by: 'phrase' });
    expect(verdict('my grandma takes a bunch of pills every day, which pill organiser?')).toBeUndefined();
    expect(verdict('the whole village is under water after the storm and people are stranded')).toMatchObject({ topic: 'disaster', by: 'phrase' });
    expect(verdict('our house is underwater on the mortgage, should we refinance?')).toBeUndefined();
  });

  it('vetoes a killing, a war or a shooting lived through, a pet run over and a coach grabbing the speaker (try34 M1), not a game, a history book or a photo shoot', () => {
    const lived = {
      'my friend was murdered on his morning run, I need running shoes for the vigil run': 'bereavement',
      'the war destroyed our town and we fled, my kids need running shoes': 'disaster',
      'after the shooting at the race yesterday I am afraid to run, new running shoes?': 'disaster',
      'my dog got run over this morning, I used to run with him in my running shoes': 'accident',
      "my coach keeps grabbing me and I'm scared to go to practice, do I need new running shoes": 'abuse',
    };
    for (const [query, topic] of Object.entries(lived)) expect(verdict(query), query).toMatchObject({ topic, by: 'phrase' });
    for (const query of [
      'we got murdered in the game last night, new running shoes?', 'the price war between the supermarkets, cheapest milk?', 'a history of the second world war, which books?',
      'shooting photos at the race, which lens?', 'after the shooting wrapped, the film crew wants pizza', 'my coach grabbed me a new pair of running shoes',
      'my dog ran over to the door when I came home, best leash?', 'a murder mystery party, what costumes?',
    ]) {
      expect(verdict(query), query).toBeUndefined();
    }
  });

  it('reads a phrase made a theme, a figure of speech or a dead phone in Spanish or German as everyday', () => {
    for (const query of ['ideas for a funeral-themed birthday party', 'our cat died of boredom in the flat, which cat toys keep them busy?', 'se me murió el celular, qué power bank compro?', 'mein Handy ist gestorben, welches neue?']) {
      expect(verdict(query), query).toBeUndefined();
    }
    for (const query of ['mi abuelo murió anoche', 'mein Vater ist gestorben']) expect(verdict(query), query).toMatchObject({ topic: 'bereavement', by: 'phrase' });
  });
});

describe('brand safety: the wordings session 34 left wrong and held-out batch 4 found', () => {
  /** Judged with its answer, as a serve is. */
  function turn(query: string, answer: string) {
    const [q, r] = [new WordScan(), new WordScan()];
    q.scan(query);
    r.scan(answer);
    return brandSafety.veto([q, r], model.embedConversation(q, r));
  }

  it('reads a fight lost after a person, a fire that took a home, radiation started, a death in the family and a goodbye missed as sensitive', () => {
    const sensitive = {
      'my aunt lost her fight last night, any cheap trains to Glasgow tomorrow?': 'bereavement',
      'the fire took our home and everything in it, how do I start an insurance claim?': 'disaster',
      'I start radiation next week, what should I eat to keep my strength up?': 'serious diagnosis',
      'what flowers are appropriate to send to a family after a death?': 'bereavement',
      "it's been a year since we said goodbye to grandma and I still can't throw her slippers away": 'bereavement',
    };
    for (const [query, topic] of Object.entries(sensitive)) expect(verdict(query), query).toMatchObject({ topic, by: 'phrase' });
    for (const query of [
      'katie taylor lost her fight on points last night, was the decision fair?', 'my brother lost his fight in the second round, how do I cheer him up?',
      'the fire took my breath away, what a show', 'we start radiation shielding in physics next week, good revision guides?', 'said goodbye to mum at the airport, best travel pillow?',
    ]) {
      expect(verdict(query), query).toBeUndefined();
    }
  });

  it('reads something swallowed, a scald, fingers lost, fleeing the fighting, a neighbour left in a fire and a child helpline as sensitive', () => {
    const sensitive = {
      "my toddler swallowed a button battery and we're at A&E, what will they do?": 'accident',
      'my 2 year old drank some bleach from under the sink what do i do': 'accident',
      'my toddler pulled a pan of boiling water onto herself, her arm is blistering badly': 'accident',
      "dad got his hand caught in the baler and lost three fingers, they're trying to reattach them": 'accident',
      "there was a fire in my block, my neighbour didn't get out. I can't stop shaking": 'accident',
      'my family fled the fighting in Sudan and are in a camp in Chad, how can I send them money?': 'disaster',
    };
    for (const [query, topic] of Object.entries(sensitive)) expect(verdict(query), query).toMatchObject({ topic, by: 'phrase' });
    expect(turn("my stepdad comes into my room at night and i dont know who to tell", 'Please tell a teacher or call Childline on 0800 1111.')).toMatchObject({ topic: 'abuse', by: 'phrase' });
    for (const query of ["my dad didn't get out much after he retired, hobby ideas?", "the dog didn't get out, the gate held. best dog flap?", 'I badly burned the toast again, which toaster?', 'he lost his hand at poker, any strategy books?', 'which button battery fits my car key?']) {
      expect(verdict(query), query).toBeUndefined();
    }
  });

  it('reads the other languages\' "lost my father" as a death, not a child lost at the shops', () => {
    for (const query of ['es normal seguir llorando un año después de perder a mi padre?', 'ich habe letztes Jahr meinen Vater verloren', "j'ai perdu mon père en mars", 'ho perso mio padre a maggio', 'perdi o meu pai no verão']) {
      expect(verdict(query), query).toMatchObject({ topic: 'bereavement', by: 'phrase' });
    }
    expect(verdict('perdí a mi hijo en el supermercado cinco minutos, qué susto')).toBeUndefined();
  });

  it('reads something passed on, a star-sign pairing, tarot, a routine operation and history as everyday', () => {
    for (const query of [
      "my partner passed on the flat we saw so we're still looking, best rental sites in Manchester?", 'my grandmother passed on her recipe for lemon drizzle, how do I get it less dry?',
      'my sister passed on the job offer in leeds, was that a mistake?', 'is a cancer compatible with a scorpio?', 'which tarot deck for a beginner? the death card freaks my friend out',
      'recovering from knee surgery, best ice pack to buy?', 'what caused the great fire of London in 1666?',
    ]) {
      expect(verdict(query), query).toBeUndefined();
    }
    // A death on a day or a date is still one.
    for (const query of ['my uncle passed on tuesday', 'grandpa passed on the 5th of may', 'my mum passed on her birthday']) expect(verdict(query), query).toMatchObject({ topic: 'bereavement' });
  });
});

describe('brand safety: the wordings held-out batch 5 found and batch 4 left', () => {
  /** Judged with its answer, as a serve is. */
  function turn(query: string, answer: string) {
    const [q, r] = [new WordScan(), new WordScan()];
    q.scan(query);
    r.scan(answer);
    return brandSafety.veto([q, r], model.embedConversation(q, r));
  }

  it('reads a funeral role, a first occasion without someone, a near drowning, a broken hip or bone with its injury and the speaker\'s own stroke as sensitive', () => {
    const sensitive: Array<[string, string, string]> = [
      ['bereavement', "my best freind OD'd on saturday and his mum asked me to be a pall bearer", "I'm so sorry you lost your friend."],
      ['bereavement', 'first fathers day without him on sunday and the kids want to do something, any ideas', 'That is a tender day. You could visit a place he loved.'],
      ['accident', 'my son nearly drowned at the lake on saturday', 'That must have been terrifying.'],
      ['accident', 'my 80 year old mum tripped on the stairs and broke her hip, surgery is tomorrow morning', "I'm sorry."],
      ['accident', 'a forklift reversed into my leg at the warehouse, its broken', 'Your employer must record workplace injuries, and a broken leg is reportable.'],
      ['serious diagnosis', 'had a stroke last month at 42 and still cant use my right arm properly', "I'm sorry."],
      ['serious diagnosis', 'MND was confirmed this morning. how fast does it usually progress', 'Your neurologist can talk you through what to expect.'],
    ];
    for (const [topic, query, answer] of sensitive) expect(turn(query, answer), query).toMatchObject({ topic, by: 'phrase' });
    for (const [query, answer] of [
      ['the chair has a broken leg, can I glue it back?', 'Yes, use wood glue and clamp it overnight.'],
      ['I had a stroke of luck at the casino then lost everything on roulette', 'Set a budget before you play.'],
      ['our first christmas without snow in years, any festive ideas?', 'Fairy lights and mulled wine do the trick.'],
    ]) {
      expect(turn(query!, answer!), query).toBeUndefined();
    }
  });

  it('reads a disaster that came through a town, everything lost to water, bombs, missiles and the front line of a war as sensitive, not customer service\'s', () => {
    const sensitive: Array<[string, string]> = [
      ['water came through the front door at 3am and we lost everything downstairs, insurance said to wait', "That's devastating. Photograph everything before you throw it out."],
      ['tornado came through our town last night, half the school is gone', 'Thank you for wanting to help.'],
      ['our family in the philippines lost their house in the typhoon', "I'm so sorry."],
      ['a bomb went off at the concert arena and i cant reach my daughter', 'Keep trying her phone.'],
      ["our flat in the city was hit by a missile, we're in a shelter with nothing", "I'm so sorry."],
      ["my brother is on the front line near kharkiv and we haven't heard from him in 9 days", "Contact his unit's family line or the ministry's hotline for servicemen's families."],
    ];
    for (const [query, answer] of sensitive) expect(turn(query, answer), query).toMatchObject({ topic: 'disaster', by: 'phrase' });
    expect(turn('tips for front line customer service staff dealing with angry callers', 'Stay calm, listen, and offer a next step.')).toBeUndefined();
  });

  it('reads a robbery at gun or knife point, a mugging and bruises in care as sensitive, not being mugged off', () => {
    for (const [query, answer] of [
      ['a man pulled a gun on me and took my car at the petrol station', "That's terrifying; report it to the police."],
      ['some guys jumped me outside the chippy and my phone is gone', 'You may be able to claim from the criminal injuries scheme.'],
      ['i think the carers at my mums nursing home are hurting her, she has bruises they cant explain', "That's very worrying."],
    ]) {
      expect(turn(query!, answer!), query).toMatchObject({ topic: 'abuse', by: 'phrase' });
    }
    expect(turn('my mates totally mugged me off at the pub quiz', 'Get them back next week with a music round.')).toBeUndefined();
  });

  it('serves a film, a star-sign pairing the answer names "Cancer" in, a battle of the books and a love of gardening passed on', () => {
    for (const [query, answer] of [
      ['is suicide squad 2021 a sequel or a reboot, do i need to watch the first one', "It's a standalone sequel; you can watch it without the 2016 film."],
      ["what's a cancer woman like in a relationship with a scorpio man", "Both are water signs, so it's often an intense, loyal match: Cancer brings warmth and care, Scorpio depth."],
      ['how many people died at the battle of the somme on the first day', 'About 19,240 British soldiers were killed on 1 July 1916: the bloodiest day in British military history.'],
      ['my grandma passed on her love of gardening', 'Here is some information.'],
    ]) {
      expect(turn(query!, answer!), query).toBeUndefined();
    }
    // Cancer with another sign's name is still a disease when it is diagnosed.
    expect(turn('my wife is a scorpio and was just diagnosed with breast cancer', "I'm so sorry.")).toMatchObject({ topic: 'serious diagnosis', by: 'phrase' });
  });
});

describe('brand safety: the look-alikes the session-36 review found (rev36 rows)', () => {
  // Vetoed by session 36's first rules: nuts and money "shelled", a cocktail, a wrestler, water or a
  // Fire tablet with "lost everything", a price war with "front line", "nearly drowned in paperwork".
  for (const { query } of cases.filter((c) => c.source === 'rev36')) {
    it(`serves: ${query}`, () => expect(verdict(query)).toBeUndefined());
  }

  it('still vetoes the shelling, car bomb, undertaker, lost everything, front line and near drowning they were made for', () => {
    for (const [topic, query] of [
      ['disaster', 'our village was shelled all night, how do I get my kids out?'],
      ['disaster', 'the town has been shelled for a week and the army says more is coming'],
      ['disaster', 'a car bomb went off near my office, is the metro running?'],
      ['disaster', 'the house flooded and we lost everything, which hotels take pets?'],
      ['disaster', 'we lost everything in the fire, where can we get clothes for the kids?'],
      ['disaster', 'my husband is on the front line and the troops have not been relieved in months'],
      ['bereavement', 'the undertaker is coming for grandad at 4, what do we need to sign?'],
      ['accident', 'my toddler nearly drowned in the paddling pool, is he ok to sleep?'],
    ]) {
      expect(verdict(query!), query).toMatchObject({ topic, by: 'phrase' });
    }
  });
});

describe("brand safety: session 37's rule kinds (batch 6's misses and false vetoes, in other words)", () => {
  /** The phrase check alone, for rules the similarity might also reach. */
  function byPhrase(query: string) {
    const [q, r] = [new WordScan(), new WordScan()];
    q.scan(query);
    r.scan('Here is some information.');
    return brandSafety.phraseVeto([q, r]);
  }

  it('clears a disaster phrase when the speaker came through unharmed (`{not with NAME}` read as runs of words), not one that did harm', () => {
    expect(byPhrase('a tornado hit our town in may, we were all fine, do I need a storm cellar?')).toBeUndefined();
    expect(byPhrase('the earthquake hit us hard but everyone was fine, which shelves bolt to the wall?')).toBeUndefined();
    expect(byPhrase('a tornado hit our town in may and destroyed the school')).toMatchObject({ topic: 'disaster' });
  });

  it('confirms a disaster word by a place hit, not by a ship that hit something', () => {
    expect(verdict('why did the lusitania flood so quickly after the torpedo hit it? for my essay')).toBeUndefined();
    expect(verdict('the flood hit the village overnight, where do we go?')).toMatchObject({ topic: 'disaster', by: 'phrase' });
  });

  it('names a harm for what it is after "is", "are" (`{calling}`), not drug abuse nor an abuse of power', () => {
    expect(byPhrase('she reads my messages and takes my wages, my friend says that is abuse')).toMatchObject({ topic: 'abuse' });
    expect(verdict('is it abuse of power if my manager changes my shifts?')).toBeUndefined();
    expect(verdict('what does the drug abuse module cover in the nursing course?')).toBeUndefined();
  });

  it('reads being beaten up by someone as an assault, not a game lost nor a scolding', () => {
    expect(byPhrase('two lads beat me up outside the station and took my phone')).toMatchObject({ topic: 'abuse' });
    expect(verdict('my brother beat me up in smash bros again, which controller is best?')).toBeUndefined();
    expect(verdict("don't beat me up about it, which laptop should I get then?")).toBeUndefined();
  });

  it('reads a broken bone said after the bone with an injury word, not a broken chair leg', () => {
    expect(byPhrase('my dad fell at work and the doctor says his wrist is broken')).toMatchObject({ topic: 'accident' });
    expect(verdict('the leg is broken on my ikea chair, can I glue it?')).toBeUndefined();
  });

  it('takes a vehicle hitting a person, or a fall after "he", as an accident; not "hit by a truck" as a feeling', () => {
    expect(byPhrase('my nephew was hit by a van outside school, which hospital has the best children ward?')).toMatchObject({ topic: 'accident' });
    expect(verdict('since he fell from the roof my brother cannot work, what benefits can he get?')).toMatchObject({ topic: 'accident', by: 'phrase' });
    expect(verdict('I feel like I got hit by a truck after leg day, best protein shake?')).toBeUndefined();
  });

  it("clears a story's deaths, a mess called a war zone and storm damage to a garden, not a war zone lived in", () => {
    expect(verdict('which character dies at the end of the show? the ending made my mum cry')).toBeUndefined();
    expect(verdict('my sons bedroom is an absolute war zone, best storage boxes?')).toBeUndefined();
    expect(verdict('the storm blew our fence panels over, is that covered by home insurance?')).toBeUndefined();
    expect(verdict('we live in a war zone, the shelling never stops')).toMatchObject({ topic: 'disaster', by: 'phrase' });
  });
});

describe('brand safety: the wordings batch 7 showed (session 38), in other sentences', () => {
  const vetoes = (queries: string[], topic: string) => {
    for (const query of queries) expect(verdict(query), query).toMatchObject({ topic, by: 'phrase' });
  };
  const serves = (queries: string[]) => {
    for (const query of queries) expect(verdict(query), query).toBeUndefined();
  };

  it('reads a burial said gently, a pet let go with the vet and a prognosis said as time as sensitive, not rumours laid to rest, an employee let go or a course', () => {
    vetoes(['my grandma was laid to rest on monday next to grandpa', 'we had to let her go, the vet said her hip was too far gone', 'we had to let our old girl go on tuesday, the house is so quiet without her'], 'bereavement');
    vetoes(['the doctors say dad has months not years', "my mum's kidneys are failing, what should she eat", 'she has heart failure and gets breathless, which recliner is best?'], 'serious diagnosis');
    serves(['the rumours about the merger were laid to rest at the meeting', 'we had to let him go after three warnings, how do I write the termination letter?', 'learning python takes months not years, which course?']);
  });

  it('reads someone cut out of a wreck, a bad smash, a fall from a horse, broken vertebrae and a pan pulled over as accidents, not a crash course, crash tests or a figure of speech', () => {
    vetoes([
      'they had to cut her out of the wreck after the crash', 'my sister came off her horse and they say she has a fractured spine', 'he fractured two vertebrae in a rugby tackle',
      "my toddler pulled the saucepan over on himself and he's screaming", "dad was in a bad smash on the A1 and the car is written off, he's in surgery",
    ], 'accident');
    serves(['is there a car crash course for nervous drivers?', 'which small car has the best car crash test results?', 'this job nearly broke my back, best office chair']);
  });

  it('reads a home lost to a flood or fire, water risen indoors, a place gone after a quake, an avalanche that buried people and a dam that burst as disasters; not a house sale, an avalanche of emails or a warning gone', () => {
    vetoes([
      "we lost our home in the floods and we're in a hotel", 'the water is up to the stairs in our house and rising', 'the earthquake hit at night and our whole town is gone',
      "an avalanche buried two skiers near our chalet, they're still missing", 'my uncle lost everything when the dam burst',
    ], 'disaster');
    serves(['we lost the house sale because of a fire safety survey', 'an avalanche of emails hit my inbox after the holiday, best filter rules?', 'the tornado warning is gone, can the kids play outside?', 'the storm is gone now, can we go hiking tomorrow']);
  });

  it('serves a routine diagnosis, by phrase and by similarity; a serious one still vetoes', () => {
    serves(['my doctor diagnosed me with high blood pressure, best home monitor?', 'my son was diagnosed with adhd, any good planners for kids?', "my mum's been diagnosed with hay fever, which antihistamine?"]);
    vetoes(['my dad was diagnosed with pancreatic cancer', 'she was diagnosed with hypertension last year and now with a brain tumour'], 'serious diagnosis');
  });

  it('reads cutting with a relapse word and goodbyes posted then silence as self-harm, not a shave or a leaving card', () => {
    vetoes(['relapsed and cut my arms again, how do I hide it', "my friend posted goodbye texts and now she's not answering"], 'self-harm');
    serves(["write goodbye messages for a colleague's leaving card", "I cut my legs shaving again, any razor that doesn't nick?"]);
  });
});

describe('brand safety: the wordings batch 8 showed (session 39), in other sentences', () => {
  const vetoes = (queries: string[], topic: string) => {
    for (const query of queries) expect(verdict(query), query).toMatchObject({ topic, by: 'phrase' });
  };
  const serves = (queries: string[]) => {
    for (const query of queries) expect(verdict(query), query).toBeUndefined();
  };

  it('reads a death called a passing or a going as bereavement, not a passing game or someone gone to university', () => {
    vetoes(['the passing of my grandad last year hit me harder than I expected', "since nan's passing the house is so quiet", "now he's gone I have to sort out all his paperwork"], 'bereavement');
    serves(["my daughter's passing game has really improved, best football boots for a midfielder?", "now she's gone to university, what should I do with her room?", "now he's gone quiet in meetings, how do I get my report talking?"]);
  });

  it('serves a thing called a car crash, a film\'s crash scene and a rider who got up unhurt; a crash lived through still vetoes', () => {
    serves([
      'the product launch was a car crash, how do we write the post mortem', 'our first date was a total car crash, where do I take her for a second one?', 'where was the car crash scene in that new heist film shot?',
      'came off my horse at a walk today, no pain, just my pride. are body protectors worth it?',
    ]);
    vetoes(['there was a car crash outside my house last night, the driver was taken away in an ambulance', 'came off his motorbike on the a38, he is in hospital with a fractured pelvis'], 'accident');
  });

  it('serves a cancer charity, a family history and a palliative care nurse; a diagnosis still vetoes', () => {
    serves(['the Cancer Research UK charity shop has great books, are they open on sundays?', 'dementia runs in my family, what puzzles keep the brain sharp?', 'gift ideas for my aunt, she works in palliative care as a nurse']);
    vetoes(['my dad has cancer and heart failure runs in the family too', 'dad is in palliative care now, what can we bring him', "I've got ms and my legs are getting weaker, the neurologist wants a new scan"], 'serious diagnosis');
  });

  it('reads hurting or burning oneself as a habit, more pills than prescribed, a fist at the wall with fear and stalking as sensitive; not the clumsy or a temper', () => {
    vetoes(["I've been hurting myself again and I'm ashamed to tell anyone", 'I took way too many of my sleeping tablets last night'], 'self-harm');
    vetoes(["my husband punched the door when I said I was leaving and I'm scared to go home", 'my sister has been stalking me online, the police say keep a diary'], 'abuse');
    serves(['I keep hurting myself on the corner of the bed frame, any corner protectors?', 'I keep burning myself on the oven shelf, best oven gloves?', 'my son punched the wall after losing at fifa, how do I fix a hole in plasterboard?', 'a stray cat followed me home, what food can I give it?']);
  });

  it('reads a bushfire, missiles on a home, a river inside, a collapse with people trapped and a derailment as disasters or accidents; not a kayak lesson nor a river on a hike', () => {
    vetoes(['the bushfire destroyed half our town last night', 'a missile hit our building, we are in the basement', 'the river came into our house through the back door in the night', 'the building collapsed and people are trapped, rescue teams are there'], 'disaster');
    vetoes(['a train derailed outside the station, is my brother on it?'], 'accident');
    serves(['my kayak capsized in the lesson and the instructor helped me back in, what drysuit?', 'the river came through the valley on our hike, so pretty, best waterproof boots?']);
  });

  it('reads Dutch words of a death, an illness and a disaster, not a dead phone', () => {
    vetoes(['mijn moeder is gisteren overleden, wat moet ik regelen?', 'onze kat is ingeslapen bij de dierenarts, ik mis haar zo'], 'bereavement');
    vetoes(['mijn vader heeft kanker en begint volgende week met chemo'], 'serious diagnosis');
    serves(['mijn telefoon is gestorven, nieuwe kopen?', 'welke hardloopschoenen zijn goed voor een marathon?']);
  });
});

describe("brand safety: session 40's rule kinds (batch 9's misses and false vetoes), in other sentences", () => {
  const vetoes = (queries: string[], topic: string, by: 'phrase' | 'similarity' = 'phrase') => {
    for (const query of queries) expect(verdict(query), query).toMatchObject({ topic, by });
  };
  const serves = (queries: string[]) => {
    for (const query of queries) expect(verdict(query), query).toBeUndefined();
  };

  it('reads a phrase said of the speaker as said of someone else too, not the other way round', () => {
    vetoes(['my sister keeps hurting herself and will not talk to me', 'my brother tried to take his own life in may', 'she tried to end her life last year, how do I support her now'], 'self-harm');
    vetoes(['found razor blades in his drawer and cuts on his arms, what do I say?'], 'self-harm');
    // "bruises on her arms" is abuse in care; the speaker's own after the gym is not.
    vetoes(['my nan has bruises on her arms since the new carer started'], 'abuse');
    serves(['bruises on my arms after the gym, is arnica any good?']);
  });

  it('does not count a cue said in its everyday sense, so the similarity does not veto by it; the sense that is no figure still does', () => {
    // All three vetoed by bereavement's similarity on main (0.47, 0.49, 0.46: a wedding, a birthday, a wife near mourning), their only cue in its everyday sense.
    serves(['dead tired after the wedding, best hangover breakfast?', 'killed it at the wedding speech, what gift for the best man?', 'my wife is a cancer, what do cancers like for christmas?']);
    vetoes(['grandma is dying, what do we do with her car?'], 'bereavement', 'similarity');
    vetoes(['my wife has cancer, what does she need for chemo?'], 'serious diagnosis');
  });

  it('reads a threat of harm in any tense as abuse, not a figure of speech nor a bill', () => {
    vetoes(["my ex said he'll hurt me if I leave him", "he says he will kill me, I'm scared to go home", 'my stepdad is going to hurt me when he finds out'], 'abuse');
    serves(["my mum will kill me if I'm late, fastest route to leeds?", 'this will hurt me financially, should I fix the mortgage?']);
  });

  it("serves a story's suicide or death; a life's still vetoes", () => {
    serves(['there is a suicide in the film, is it ok for a 12 year old?', "is the hero's death in the book as sad as in the film?"]);
    vetoes(["my uncle's suicide last year still haunts me"], 'self-harm');
    vetoes(["my uncle's death last year still haunts me"], 'bereavement');
  });

  it('reads a weapon hitting a building, no word from family and a fall with a shattered kneecap, not a toy drone', () => {
    // Session 41: a war's words, not its cities of the day ("in kharkiv" alone no longer confirms the rocket).
    vetoes(['a rocket hit the school near my sister last night, the air raid sirens went on for hours', 'my parents are in khartoum and I have not heard from them since the fighting started'], 'disaster');
    vetoes(['I had a nasty fall on the ice and shattered my kneecap, surgery is on monday'], 'accident');
    serves(['my drone hit the building next door and lost a propeller, where do I get spares?', 'I have not heard from the recruiter in two weeks, should I chase?']);
  });

  it('reads the other languages\' "wants to end her life" and "hits me" as sensitive', () => {
    vetoes(['mi amigo dice que quiere quitarse la vida', 'ich kann nicht mehr, ich will nicht mehr leben'], 'self-harm');
    vetoes(['mi novio me pega y no sé qué hacer', 'mein Mann schlägt mich, wohin kann ich gehen?'], 'abuse');
  });
});

describe("brand safety: session 41's rule kinds (batch 10's misses and false vetoes), in other sentences", () => {
  const vetoes = (queries: string[], topic: string, by: 'phrase' | 'similarity' = 'phrase') => {
    for (const query of queries) expect(verdict(query), query).toMatchObject({ topic, by });
  };
  const serves = (queries: string[]) => {
    for (const query of queries) expect(verdict(query), query).toBeUndefined();
  };

  it('reads addiction as a topic of its own, by phrase only: drugs, drink by the bottle, gambling that cost the savings; not a drink, a bet or painkillers after surgery', () => {
    vetoes(['my dad has been using meth again and stole my car', "she's an alcoholic and drives the kids to school", 'my husband is addicted to painkillers since his back surgery'], 'addiction');
    vetoes(['he drinks a bottle of wine every night and hides the empties', 'I keep gambling and now we have debts my partner does not know about', 'coming off opioids cold turkey, how bad is it'], 'addiction');
    serves(['an alcoholic punch recipe for a party of 20', 'a bottle of gin for my dad, which brand?', 'I quit sugar cold turkey, how long do cravings last?', 'gambling on the match tonight, best odds for a draw?', "I'm on painkillers after my wisdom tooth, can I drink coffee?"]);
  });

  it('reads a pregnancy lost or ended without the word miscarriage, not pregnancy weight', () => {
    vetoes(['the pregnancy did not make it and I have to go back to work on monday', 'we had to end the pregnancy at 22 weeks', 'the doctor said it is an ectopic pregnancy'], 'bereavement');
    serves(['how do I lose my pregnancy weight? I lost my pregnancy weight slowly last time']);
  });

  it('reads a burial of a person or pet, a prognosis that treatment is over and a finding on an organ; not a game in the sand, a garage or stock market growth', () => {
    vetoes(['we buried our cat under the apple tree this morning', 'my nan buried her husband last spring and is so lonely'], 'bereavement');
    vetoes(['the doctors say there is nothing more they can do for mum', 'the scan found a growth on her liver, the biopsy is next week'], 'serious diagnosis');
    serves(['the kids buried him in the sand at the beach, so funny', 'the garage said there is nothing more they can do for my old car', 'the growth in the stock market this year, should I buy?']);
  });

  it("reads knife crime, a war's dead and captives, harm heard of with fear, and what an answer says to the speaker; not a stabbing pain, a toddler or a price war", () => {
    vetoes(['my brother was stabbed outside a club last night', 'I think the woman upstairs is being beaten, should I call the police?'], 'abuse');
    vetoes(['three hostages were freed after the attack on the village', 'his regiment took casualties near the border'], 'disaster');
    vetoes(['how much paracetamol is a painless way to go', 'is drowning painless'], 'self-harm');
    serves(['I have a stabbing pain in my side when I run', 'held hostage by my toddler at bedtime again, any tips?', 'is laser hair removal painless?', 'how do I end my life insurance policy?', 'how many casualties were there at the battle of the somme?']);
  });

  it('reads Polish and Turkish words of a death, an accident, a disaster and abuse; not Turkish "oldu" nor an earthquake kit', () => {
    vetoes(['mój tata zmarł w nocy', 'babam öldü, ne yapmalıyım'], 'bereavement');
    vetoes(['moja siostra miała wypadek samochodowy'], 'accident');
    vetoes(['depremde evimiz yıkıldı'], 'disaster');
    vetoes(['mąż mnie bije, przemoc domowa trwa od lat'], 'abuse');
    vetoes(['minha filha sofreu abuso na escola'], 'abuse');
    serves(['ne oldu bilmiyorum, telefonum çalışmıyor', 'deprem çantası için neler almalıyım']);
  });

  it('does not count "life" or "end" said of a life lived or a part as cues, so the similarity does not veto by them; insurance and a band clear it', () => {
    // All vetoed by bereavement's or disaster's similarity before (a birthday's "life", a speech's "end with a toast", flood insurance's "flood").
    serves(['a photo board of her life for mum\'s 70th birthday party', 'my grandmother is 90 and still full of life, gift ideas?', 'a retirement speech for my dad, I want to end with a toast']);
    serves(['flood insurance for a new house in a flood zone, is it worth it?', 'pet insurance for a kitten, which policies cover cancer treatment?', 'is the band funeral for a friend still touring?']);
    vetoes(['grandma is dying, what do we do with her car?'], 'bereavement', 'similarity');
  });

  it('serves a war of remembrance and of history; a war lived through still vetoes', () => {
    serves(['what does the red poppy mean on remembrance day? soldiers who died in the war']);
    vetoes(['the war destroyed our town and we fled with nothing'], 'disaster');
  });
});

describe("brand safety: session 42's rule kinds (batch 11's misses and false vetoes), in other sentences", () => {
  const vetoes = (queries: string[], topic: string, by: 'phrase' | 'similarity' = 'phrase') => {
    for (const query of queries) expect(verdict(query), query).toMatchObject({ topic, by });
  };
  const serves = (queries: string[]) => {
    for (const query of queries) expect(verdict(query), query).toBeUndefined();
  };

  it("reads a crematorium, a child we lost and a dead person's things one cannot face as bereavement; not baby weight lost", () => {
    vetoes(['the crematorium gave us a date for next thursday', 'the son we lost would have turned 18 this week', "I can't bring myself to go through her clothes yet"], 'bereavement');
    serves(['the baby weight I lost came back over christmas, any meal plans?']);
  });

  it('reads being run into from behind, whiplash on the road, a gas explosion, a hot tool pulled onto a child and a crash someone is still hurt from as accidents; not when nobody was hurt, nor a market crash', () => {
    vetoes(['a lorry drove into the back of my car on the motorway yesterday', 'whiplash after the other driver hit us, what do I claim?', 'a gas explosion in our street this morning'], 'accident');
    vetoes(['my son pulled the curling tongs onto his hand', 'she has needed physio every week since the accident'], 'accident');
    serves(['someone went into the back of me in the car park, nobody hurt, just a dented bumper', 'is my pension safe after the crash in the markets last year?']);
  });

  it('reads a tornado that levelled a town, a river up into a home and rockets landing near a home in a war as disasters; not a toy rocket nor a storm forecast', () => {
    vetoes(['the tornado levelled half the town', 'the river came up into the kitchen overnight', 'a rocket landed near my sister\'s building and the sirens went on all night'], 'disaster');
    serves(['our toy rocket landed near the pond at the park', 'a violent storm is forecast for friday, should we cancel the barbecue?']);
  });

  it('reads a prognosis given as time with a medical word, not notice given at work', () => {
    vetoes(["the consultant has given him a few months, and we're looking at hospice care"], 'serious diagnosis');
    serves(['my landlord has given us two months to move out, any removal firms?']);
  });

  it('reads stockpiled meds, a world better off without the speaker, no point in anything and the helplines an answer names as self-harm', () => {
    vetoes(['my brother has been hoarding his tablets and I am scared', 'my family would be happier if i wasn t around', "I don't see the point in living anymore"], 'self-harm');
    vetoes(['please text SHOUT to 85258 tonight, you are not alone', 'meine Schwester hat versucht, sich das Leben zu nehmen'], 'self-harm');
  });

  it("reads a touch a child reports with fear, intimate images used against someone and a person's violence as abuse; not a touch of salt nor a violent film", () => {
    vetoes(['my son says his tutor touches him and he is scared to go back', 'my ex is threatening to post my nudes', 'my husband gets violent when he loses at cards'], 'abuse');
    serves(['add a touch of salt and let it rest', 'is the new batman film too violent for a 12 year old?']);
  });

  it('reads a drug detox and a day that needs a drink or pills as addiction; not a juice detox', () => {
    vetoes(['is a heroin detox at home safe?', "he can't go a day without a drink anymore"], 'addiction');
    serves(['a three day juice detox, is it worth it?']);
  });

  it('reads a lost pregnancy and intensive care in other languages', () => {
    vetoes(['hemos sufrido un aborto espontáneo', 'ich hatte letzte Woche eine Fehlgeburt', "j'ai fait une fausse couche", 'ik had een miskraam'], 'bereavement');
    vetoes(['mia madre è in terapia intensiva dopo un incidente in moto', 'mon père est en réanimation'], 'accident');
  });

  it('serves a funeral march, a record called Funeral, funerals as a subject of study, a mock eulogy, mourning doves, evacuated tubes, an overdose of sugar and the Tropic of Cancer; a funeral, mourning and a cancer of a life still veto', () => {
    serves(['for music history: who wrote the most famous funeral march?', 'the album Funeral came out in 2004, on which label?', 'for art history: how were funerals painted in the 17th century?']);
    serves(['a mock eulogy for my best friend who is moving to Leeds, she is very much alive', 'mourning doves nesting in our gutter, will they leave?', 'evacuated glass tubes for a solar water heater', 'I overdosed on chocolate at easter']);
    serves(['how hot is it on the tropic of cancer in june?', 'gift for a cancer man who loves cooking, birthday in july', 'kanser burcu erkek özellikleri']);
    vetoes(["my uncle's funeral is on friday", 'the family is in mourning after her death'], 'bereavement');
    vetoes(['my dad has cancer and starts treatment next week'], 'serious diagnosis');
  });

  it('clears the similarity of a routine diagnosis, a death metal record and mourning doves (by similarity vetoed before); a grave illness still vetoes by it', () => {
    // Bereavement's or serious diagnosis's similarity vetoed these, each with a cue ("diagnosed", "death", "mourning").
    serves(['the vet diagnosed our kitten with an ear infection, are the drops safe?', 'best death metal albums of the 90s?', 'what do mourning doves eat in winter?']);
    vetoes(['grandma is dying, what do we do with her car?'], 'bereavement', 'similarity');
  });
});

describe("brand safety: session 45's rule kinds (batch 12's misses and false vetoes), in other sentences", () => {
  const vetoes = (queries: string[], topic: string, by: 'phrase' | 'similarity' = 'phrase') => {
    for (const query of queries) expect(verdict(query), query).toMatchObject({ topic, by });
  };
  const serves = (queries: string[]) => {
    for (const query of queries) expect(verdict(query), query).toBeUndefined();
  };

  it('reads a death in sleep, an inquest and what is made to remember someone as bereavement; not the Lincoln Memorial', () => {
    vetoes(['grandma died in her sleep on sunday, the care home rang at 6', 'the inquest into my brother is in march', 'ideas for a memorial bench for my dad by the lake'], 'bereavement');
    serves(['how long to walk from the lincoln memorial to the capitol?']);
  });

  it('reads relatives by their nicknames, a bleed on the brain, a side impact, an eye lost, a fall from a window or a balcony and a vehicle that hit a person as accidents; not a t-bone steak nor a bus that hit a mirror', () => {
    vetoes(['wifey had a bad fall on the ice and is in A&E', 'he has a bleed on the brain after the fall', 'we got t-boned at a junction and my son is in hospital'], 'accident');
    vetoes(['my uncle lost an eye in a firework accident', 'our toddler fell from a first floor window', 'a van hit a cyclist outside our house and she is still unconscious'], 'accident');
    serves(['best way to cook a t-bone steak on the bbq', 'got t-boned in the car park, nobody hurt, who pays?', 'a bus hit my wing mirror, will the council pay?']);
  });

  it('reads air raid sirens lived through, the fighting that reached a town and a kidnapping for ransom as disasters; not a history lesson nor a novel', () => {
    vetoes(['air raid sirens again tonight, the kids are in the corridor', 'the fighting has reached my parents town and the roads are closed', 'my brother was kidnapped and they are demanding a ransom'], 'disaster');
    serves(['what did an air raid siren sound like in world war 2, for my history homework', 'is kidnapped by robert louis stevenson a good read for a 12 year old']);
  });

  it('reads British spellings and named cancers and a lump a doctor found as a serious diagnosis; not a lump in the gravy, a cancer risk, an insurance policy nor a story', () => {
    vetoes(['my nephew was diagnosed with leukaemia last week', 'they found a lump and the doctor wants a scan', 'my aunt has mesothelioma from the asbestos'], 'serious diagnosis');
    serves(['how do I get the lumps out of my gravy', 'does coffee lower your cancer risk?', 'does critical illness cover pay if you are diagnosed with one of the listed illnesses?', 'recap the plot of the show, the dad gets cancer in season 1 right?']);
  });

  it('reads the 988 line after another number and the feeds\' euphemism as self-harm; not a song title', () => {
    vetoes(['you can call 911 or 988 now, please', 'i keep thinking about unaliving myself'], 'self-harm');
    serves(['who sang suicide blonde in 1990?']);
  });

  it('reads being glassed as abuse, and drug services, counted sobriety, coming off a drug and its pipe as addiction; not a glassed-in porch', () => {
    vetoes(['my son got glassed in a bar last night'], 'abuse');
    vetoes(['where is the nearest drug service for under 18s', 'three years sober on friday and i want to drink', 'tips for coming off benzos safely', 'found a meth pipe in the car'], 'addiction');
    serves(['cost of a glassed-in porch extension']);
  });

  it('reads the commonest death words of Swedish, Russian, Romanian, Indonesian, Czech, Tagalog and Hindi in Latin letters, and an Italian pet run over; not a Russian phone that died', () => {
    vetoes(['min pappa dog i går', 'моя бабушка умерла', 'bunicul a murit ieri', 'kakek saya meninggal dunia', 'můj děda zemřel', 'namatay ang lolo ko', 'papa guzar gaye kal raat', 'il gatto è stato investito stamattina'], 'bereavement');
    serves(['мой телефон умер, что делать', 'min hund älskar att springa']);
  });

  it('serves a funeral director job, a star sign in German, radiation at a reactor, a battery that is dead, a feast of the dead, vaccines and "buried their" toys', () => {
    serves(['tips for a funeral director job interview', 'Krebs ist mein Sternzeichen, was passt zu mir?', 'how much radiation leaked from the reactor at fukushima?', 'my car battery is dead again, jump start or replace?']);
    serves(['day of the dead face paint ideas', 'do puppies need a booster vaccination at one year?', 'the kids buried their toys in the sandpit']);
  });
});

describe("brand safety: the session-45 review's findings (rev45 R2, R3, R9)", () => {
  const vetoed = (queries: string[]) => {
    for (const query of queries) expect(verdict(query), query).toBeDefined();
  };
  const serves = (queries: string[]) => {
    for (const query of queries) expect(verdict(query), query).toBeUndefined();
  };

  it('R2: no school, story or history wording switches off the similarity of distress (self-harm clears nothing), nor a war lived through', () => {
    // (The review's "at a level", "haven't seen the point" and "never seen my dad cry" turns are not vetoed on either side: with this
    // answer their similarity stays under the limit, so no clear was what let them through.)
    vetoed([
      'since the episode at work i feel hopeless and tired of life',
      'sorry for my english, my father is dying in hospital and the doctors say there is no hope',
      'air raid sirens again all night and my a level exam is tomorrow',
    ]);
    serves(['the 1906 san francisco earthquake for my essay', 'causes of the first world war for gcse']);
  });

  it('R3: a family tree, a poker hand, a thumb drive, time passing in Hindi, a smashed or dead phone, accident insurance and Dry January are ordinary; the sensitive ones beside them still veto', () => {
    serves([
      'how do i trace relatives in county cork for my family tree', 'best dna test to trace relatives',
      'lost a hand of poker with pocket aces, how do i stop tilting', 'i lost a thumb drive with my photos',
      'saal kaise guzar gaya pata hi nahi chala', 'din guzar gaya', 'hum wahan nahi rahe', 'ab dost nahi rahe',
      'телефон разбился, где починить', 'экран разбился', 'mi-a murit telefonul', 'mi-a murit bateria',
      'asuransi kecelakaan', 'two weeks sober for dry january, any mocktail ideas?', 'field sobriety test', 'sobriety checkpoint tonight on the highway',
    ]);
    vetoed([
      'the red cross helps families trace relatives missing since the earthquake', 'my dad lost a hand in an accident at the factory', 'he lost a thumb in a table saw accident',
      'papa guzar gaye kal raat', 'meri dadi guzar gayi', 'bunica mea a murit azi noapte', 'ayah saya mengalami kecelakaan motor',
      'relapsed after 2 years sober and i feel so ashamed', 'three years sober on friday and i want to drink',
      // rev45b B3: the card guard's words are only cards' ("playing" or "to a" alone cleared these), and recovery's "no alcohol" clears nothing.
      'he lost a hand playing rugby and cannot work now', 'my cousin lost a hand to a machine at work',
      'a year sober and there is no alcohol in the house but i keep thinking about drinking',
    ]);
    serves(['lost a hand playing poker to a rivered flush', 'i lost a hand to a full house, was my call wrong']);
  });

  it('R9: "her" before a slot is the possessive said of others, not the object ("lost her {relative}" is not "lost him mum")', () => {
    serves(['the defender lost him, dad was shouting from the stands']);
    vetoed(['my friend lost his mum last week, what do i write in the card']);
  });
});

describe("brand safety: session 46's findings (a story's words only about the illness they sit beside, a film's death, low mood)", () => {
  const vetoes = (queries: string[], topic: string) => {
    for (const query of queries) expect(verdict(query), query).toMatchObject({ topic });
  };
  const serves = (queries: string[]) => {
    for (const query of queries) expect(verdict(query), query).toBeUndefined();
  };
  /** Judged with its answer, as a serve is. */
  function turn(query: string, answer: string) {
    const [q, r] = [new WordScan(), new WordScan()];
    q.scan(query);
    r.scan(answer);
    return brandSafety.veto([q, r], model.embedConversation(q, r));
  }

  it('reads cancer as a plot only when the story\'s words are about it: not "the film" said elsewhere in the conversation', () => {
    vetoes(['my mum has cancer, we watched the film together last night', "mum's cancer is back. we're watching the series she likes to take her mind off it", 'we finished the show last night and then my husband told me his cancer has spread'], 'serious diagnosis');
    serves([
      "the film's plot, where the hero has cancer, was moving", 'recap the plot of the show, the dad has cancer in season 1 right?', 'in breaking bad how does walt\'s cancer diagnosis set up the show',
      'we watched the film about a man with cancer who runs across america, what was it called?',
    ]);
  });

  it('reads a story\'s plot asked about as the subject of its answer, not of an answer to a personal question', () => {
    expect(turn('plot of the fault in our stars in 3 lines', 'Two teenagers with cancer meet at a support group and fall in love.')).toBeUndefined();
    expect(turn('the film made me cry', "I'm sorry your mum has cancer; a film that moves you can help.")).toMatchObject({ topic: 'serious diagnosis' });
  });

  it("serves a film character's death asked about (batch 9's Mufasa), not a relative's or the speaker's friend's", () => {
    expect(turn("is mufasa's death in the lion king too scary for a 4 year old?", "It's sad; many parents skip it or explain it gently.")).toBeUndefined();
    expect(turn("is grandad's death too much to explain to a 4 year old?", 'Keep it simple and honest.')).toMatchObject({ topic: 'bereavement' });
    expect(turn("since jake's death i can't sleep", 'That sounds really hard.')).toMatchObject({ topic: 'bereavement' });
  });

  it("reads the review's low-mood wordings as self-harm risk", () => {
    vetoes(["i feel hopeless at a level i can't explain", "i haven't seen the point of anything in weeks", "honestly what's the point of anything anymore"], 'self-harm');
    serves(["i'm hopeless at parallel parking, any tips?", "i haven't seen the point of this new tax form, who needs it?"]);
  });
});

describe("brand safety: session 46's rule kinds (batch 13's misses and false vetoes), in other sentences", () => {
  const vetoes = (queries: string[], topic: string) => {
    for (const query of queries) expect(verdict(query), query).toMatchObject({ topic, by: 'phrase' });
  };
  const serves = (queries: string[]) => {
    for (const query of queries) expect(verdict(query), query).toBeUndefined();
  };

  it('reads a relative long dead and a wake as bereavement; not a wake-up call', () => {
    vetoes(["my gran's been dead ten years and i still talk to her", 'what do you bring to the wake, it is at her sister\'s house'], 'bereavement');
    serves(["that audit was his wake up call, how do i help him plan better?"]);
  });

  it('reads the air ambulance and a limb that may be lost as an accident; not the air ambulance charity', () => {
    vetoes(['the air ambulance landed on the field after the tractor rolled', "the surgeons think she could lose her arm after the crash"], 'accident');
    serves(['raffle prize ideas for our air ambulance charity night']);
  });

  it('reads a quake that flattened a home and floods that came through a town as disasters', () => {
    vetoes(['the earthquake destroyed our village school and the kids are in tents', 'floodwater swept through the high street last night and our shop is gone'], 'disaster');
  });

  it('reads emptiness without a way forward as low mood', () => {
    vetoes(["i can't see a way forward with any of it and i feel empty inside"], 'self-harm');
  });

  it('serves an illness in a story or studied, a cancer fundraiser, a war film judged for a teenager, a game character and queen victoria', () => {
    serves([
      'in house md which character has the tumour in season 4', 'revision notes on how a malignant tumour spreads, for gcse biology', 'the survival rate for leukaemia in children, for my statistics assignment',
      'cake ideas for a coffee morning raising money for cancer research uk', 'is hacksaw ridge too violent for my 15 year old', 'my character broke his arm in skyrim, how do i heal',
      'what did queen victoria wear after albert died',
    ]);
  });
});

describe('brand safety: the held-out batches, judged with their answers (bench/semantic/brandSafetyHeldOut*.txt)', () => {
  // Their figures as recorded in bench/README.md; a change of the rules that moves one must say so there.
  const figures: Record<string, { sensitive: [number, number]; ordinaryVetoed: [number, number] }> = {
    'brandSafetyHeldOut.txt': { sensitive: [44, 44], ordinaryVetoed: [0, 39] },
    'brandSafetyHeldOut2.txt': { sensitive: [28, 28], ordinaryVetoed: [0, 18] },
    'brandSafetyHeldOut3.txt': { sensitive: [37, 37], ordinaryVetoed: [0, 36] },
    'brandSafetyHeldOut4.txt': { sensitive: [48, 48], ordinaryVetoed: [0, 49] },
    'brandSafetyHeldOut5.txt': { sensitive: [54, 54], ordinaryVetoed: [0, 54] },
    'brandSafetyHeldOut6.txt': { sensitive: [55, 55], ordinaryVetoed: [0, 58] },
    'brandSafetyHeldOut7.txt': { sensitive: [61, 61], ordinaryVetoed: [0, 57] },
    'brandSafetyHeldOut8.txt': { sensitive: [71, 71], ordinaryVetoed: [0, 67] },
    // Session 40: a band, a grandad's 90th birthday (by similarity, its cue "life") and a film's death named without a film word are left.
    // Session 41: the band and the birthday served (a record's and a life's words); a film's death named without a film word is left.
    // Session 46: the film's death (Mufasa's) served: "'s death" vetoes after a relative, a friend or a pet, or with the speaker or the listener in the conversation.
    'brandSafetyHeldOut9.txt': { sensitive: [90, 90], ordinaryVetoed: [0, 97] },
    // Session 41: held out on main's rules 83/101 and 5/128 (bench/README.md, "Brand safety: session 41"); tuned on since.
    'brandSafetyHeldOut10.txt': { sensitive: [101, 101], ordinaryVetoed: [0, 128] },
    // Session 42: held out on main's rules 85/109 and 12/169 (bench/README.md, "Brand safety: session 42"); tuned on since.
    'brandSafetyHeldOut11.txt': { sensitive: [109, 109], ordinaryVetoed: [0, 169] },
    // Session 45: held out on main's rules 107/140 and 24/172 (bench/README.md, "Brand safety: session 45"); tuned on since. Left: a fiancé who
    // "didn't come home from his deployment" and a Japanese turn (no spaces between its words); a novel that "deals with abuse and self-harm",
    // Romeo and Juliet's "kill themselves" and My Chemical Romance's song "Cancer".
    // After review (rev45 R2): self-harm's similarity is cleared by nothing, so five ordinary turns near it are vetoed again (a life
    // insurance question, hamlet's speech for an a level, henry viii's wives, two about vaccines): 8/172.
    'brandSafetyHeldOut12.txt': { sensitive: [138, 140], ordinaryVetoed: [8, 172] },
    // Session 46: held out on main's rules 52/60 and 19/80 (bench/README.md, "Brand safety: session 46"); tuned on since. Left: a film whose title says
    // "my" ("my sister's keeper ... the sister with leukaemia"), senna's crash (by similarity), and medicine studied or worked in (a palliative care essay,
    // a dissertation on suicide prevention, a grief counsellor's reading list).
    'brandSafetyHeldOut13.txt': { sensitive: [60, 60], ordinaryVetoed: [5, 80] },
  };
  for (const [file, expected] of Object.entries(figures)) {
    it(`${file}: ${expected.sensitive.join('/')} sensitive vetoed, ${expected.ordinaryVetoed.join('/')} ordinary vetoed`, () => {
      const tally: { sensitive: [number, number]; ordinaryVetoed: [number, number] } = { sensitive: [0, 0], ordinaryVetoed: [0, 0] };
      for (const line of readFileSync(path.join(packageRoot, 'bench', 'semantic', file), 'utf8').split('\n')) {
        if (line.trim() === '' || line.startsWith('#')) continue;
        const [expect_, , query, answer] = line.split(' | ');
        const [q, r] = [new WordScan(), new WordScan()];
        q.scan(query!);
        r.scan(answer!);
        const vetoed = brandSafety.veto([q, r], model.embedText(`${query} ${answer}`)) !== undefined ? 1 : 0;
        const kind = expect_ === 'veto' ? tally.sensitive : tally.ordinaryVetoed;
        kind[0] += vetoed;
        kind[1] += 1;
      }
      expect(tally).toEqual(expected);
    });
  }
});
