/**
 * The demo's one chat exchange. The publisher's backend knows its own conversation, so it sends this
 * text as the serve context itself; the page only asks "an ad for this answer, please".
 */
export const demoConversation = {
  query: 'What should I pack for a weekend hiking trip in the mountains?',
  response: [
    'For a two-day hike in the mountains, pack for changing weather and keep the load light.',
    'Clothing: a moisture-wicking base layer, a warm fleece or light down jacket, and a waterproof rain shell. Mountain weather turns fast, and being wet is what makes you cold.',
    'Footwear: broken-in hiking boots or trail runners with good grip, plus two pairs of wool socks.',
    'Navigation and safety: a paper map of the area and a compass, a charged phone with offline maps, a headlamp, a small first-aid kit, and a whistle.',
    'Food and water: at least two litres of water per person per day, a filter or tablets if you will refill from streams, and easy snacks such as nuts, dried fruit and bars.',
    'Overnight: if you stay in a hut, bring a sleeping-bag liner; if you camp, a tent rated for wind, a sleeping bag for the night-time low, and a sleeping pad.',
    'Finally, check the forecast the evening before, tell someone your route and when you expect to be back, and turn around if the weather closes in.',
  ],
};

export const demoCreative = {
  title: 'Stay dry on the trail with the Ridgeline rain shell',
  body: 'Packs into its own pocket, weighs 240 g, and keeps out a full day of mountain rain.',
  cta: 'Shop rain shells',
};
