/**
 * Conversations no ad should appear next to. Each topic is judged two ways: any of its phrases
 * (whole words, as keywords match) vetoes the ad, and so does a conversation whose SIF vector is
 * at least BRAND_SAFETY_MIN_SIMILARITY similar to the topic's description. The phrases are the
 * unambiguous ones; words with everyday senses ("died" of a phone battery, "crash" of an app) are
 * left to the similarity, which reads the whole conversation.
 */
export interface SensitiveTopic {
  name: string;
  description: string;
  phrases: string[];
}

export const SENSITIVE_TOPICS: SensitiveTopic[] = [
  {
    name: 'bereavement',
    description: 'death of a loved one or a pet, grief, mourning, funeral, passed away, died, condolences, bereavement, grieving widow',
    phrases: ['passed away', 'funeral', 'bereavement', 'bereaved', 'condolences', 'grieving', 'mourning', 'put to sleep', 'euthanized', 'miscarriage', 'stillborn'],
  },
  {
    name: 'accident',
    description: 'serious accident, car crash, injured, killed, hospital emergency, ambulance, collision, victims, fatal injuries',
    phrases: ['car crash', 'car accident', 'fatal accident', 'hit by a car', 'seriously injured', 'critically injured', 'plane crash'],
  },
  {
    name: 'disaster',
    description: 'natural disaster, earthquake, flood, hurricane, wildfire, tsunami, evacuation, destroyed homes, victims, relief',
    phrases: ['earthquake', 'tsunami', 'hurricane', 'wildfire', 'flooded', 'evacuated', 'evacuation order', 'tornado', 'mass shooting', 'terrorist attack'],
  },
  {
    name: 'serious diagnosis',
    description: 'diagnosed with cancer, tumor, terminal illness, chemotherapy, oncologist, malignant, prognosis, leukemia, stroke',
    phrases: ['diagnosed with', 'cancer', 'tumor', 'tumour', 'terminal illness', 'chemotherapy', 'chemo', 'oncologist', 'malignant', 'leukemia', 'metastatic', 'palliative'],
  },
  {
    name: 'self-harm',
    description: 'suicide, suicidal thoughts, self harm, want to die, hopeless, overdose',
    phrases: ['suicide', 'suicidal', 'self harm', 'self-harm', 'kill myself', 'end my life', 'overdose'],
  },
  {
    name: 'abuse',
    description: 'domestic violence, abuse, assault, rape, abusive partner, victim, harassment',
    phrases: ['domestic violence', 'abusive', 'sexual assault', 'rape', 'raped', 'molested'],
  },
];

/** Similarity of a conversation to a topic's description at which the topic vetoes the ad; chosen on the evaluation set. */
export const BRAND_SAFETY_MIN_SIMILARITY = 0.4;
