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
