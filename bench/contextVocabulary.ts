/**
 * What chat conversations next to an ad look like: topics with the words advertisers target and the
 * questions and answers users and assistants actually write. Generated line items target these
 * keywords, and generated serve requests carry these texts, so keyword matching does real work.
 */
export interface Topic {
  name: string;
  keywords: readonly string[];
  queries: readonly string[];
  responses: readonly string[];
  brands: readonly string[];
}

export const topics: readonly Topic[] = [
  {
    name: 'running',
    keywords: ['running shoes', 'marathon', 'trail running', 'sneakers', 'jogging', 'half marathon', 'running', 'shin splints'],
    queries: [
      'What are the best running shoes for flat feet if I run about 30 km a week?',
      'How should I train for my first half marathon in 12 weeks?',
      'Is trail running harder on the knees than road running?',
    ],
    responses: [
      'For flat feet, look for stability running shoes with a firm midsole and good arch support. Replace them every 600 to 800 km, and build your weekly distance by no more than 10 percent.',
      'A 12-week half marathon plan usually has three easy runs, one tempo session and one long run a week, with the long run growing from 8 to 18 km. Rest days matter as much as the miles.',
      'Trail running spreads the load across more muscles and softer ground, but uneven terrain challenges your ankles. Shoes with a grippy outsole help on wet rock and roots.',
    ],
    brands: ['Northfold Outdoor', 'Stride Lab', 'Peakline'],
  },
  {
    name: 'travel',
    keywords: ['flights', 'hotel', 'lisbon', 'travel insurance', 'city break', 'backpacking', 'weekend trip', 'japan'],
    queries: [
      'Plan a 4-day city break in Lisbon with a mid-range hotel budget.',
      'Do I need travel insurance for a two-week backpacking trip in Japan?',
      'When is the cheapest time to book flights to Europe from New York?',
    ],
    responses: [
      'Day one: Alfama and the castle at sunset. Day two: Belem and the pasteis de nata. Stay in Baixa or Chiado for walkable evenings; mid-range hotels run 120 to 180 euros a night.',
      'Travel insurance is strongly recommended for Japan: medical care is excellent but expensive for visitors. Look for a policy covering medical evacuation and trip cancellation.',
      'Flights from New York to Europe are usually cheapest when booked two to four months ahead for travel between November and March, excluding the holidays.',
    ],
    brands: ['Wayfarer Air', 'Harbor Hotels', 'Globetrust Insurance'],
  },
  {
    name: 'cooking',
    keywords: ['recipe', 'sourdough', 'cast iron', 'meal prep', 'vegan', 'air fryer', 'baking', 'pasta'],
    queries: [
      'Why is my sourdough bread so dense and flat?',
      'Give me a week of vegan meal prep ideas under 50 dollars.',
      'Can I use a cast iron pan for acidic tomato pasta sauce?',
    ],
    responses: [
      'Dense sourdough usually means under-proofed dough or a weak starter. Feed the starter twice a day until it doubles in 4 to 6 hours, and let the dough rise until it is airy and jiggly.',
      'Batch-cook lentil curry, chickpea salad and a big tray of roasted vegetables on Sunday. Rice, oats, beans and frozen spinach keep the budget under 50 dollars for the week.',
      'A well-seasoned cast iron pan handles a quick tomato sauce, but long simmering strips the seasoning and can taste metallic. Use enameled cast iron or stainless steel for long cooks.',
    ],
    brands: ['Hearth & Crumb', 'Greenbasket', 'Forge Cookware'],
  },
  {
    name: 'personal finance',
    keywords: ['budget', 'savings account', 'index funds', 'credit card', 'mortgage', 'retirement', 'investing', 'interest rate'],
    queries: [
      'How much of my salary should go into retirement savings at 30?',
      'Are index funds better than picking individual stocks?',
      'Should I pay off my credit card or build an emergency fund first?',
    ],
    responses: [
      'A common rule is to save 15 percent of gross income for retirement, including any employer match. Low-cost index funds in a tax-advantaged account are a simple default.',
      'For most people, broad index funds beat stock picking after fees and taxes. They diversify across hundreds of companies and cost a fraction of a percent a year.',
      'High-interest credit card debt usually costs more than any savings account earns, so pay it down first while keeping a small starter emergency fund of one month of expenses.',
    ],
    brands: ['Ledgerly', 'Brightvault Bank', 'Compass Invest'],
  },
  {
    name: 'software development',
    keywords: ['typescript', 'postgres', 'kubernetes', 'api', 'database', 'cloud hosting', 'ci pipeline', 'monitoring'],
    queries: [
      'How do I add an index to a large Postgres table without locking writes?',
      'What is the easiest way to deploy a TypeScript API with a database?',
      'Why are my Kubernetes pods restarting with OOMKilled?',
    ],
    responses: [
      'Use CREATE INDEX CONCURRENTLY: it builds the index without blocking inserts and updates, at the cost of a slower build. It cannot run inside a transaction block.',
      'A managed platform with a hosted Postgres is the quickest path: push the repository, set the database URL as an environment variable, and add a health check route.',
      'OOMKilled means the container passed its memory limit. Raise the limit, or find the leak with a heap snapshot; for Node, also set max-old-space-size below the limit.',
    ],
    brands: ['Stackforge Cloud', 'Querywell', 'Pagerlight'],
  },
  {
    name: 'home',
    keywords: ['mattress', 'sofa', 'standing desk', 'home office', 'paint', 'furniture', 'houseplants', 'renovation'],
    queries: [
      'What should I look for in a mattress if I sleep on my side?',
      'How do I set up an ergonomic home office in a small apartment?',
      'Which houseplants survive in a dark north-facing room?',
    ],
    responses: [
      'Side sleepers usually do best on a medium or medium-soft mattress that lets the shoulder and hip sink in. Memory foam or a hybrid with a pillow top relieves pressure points.',
      'Put the top of the screen at eye level, keep elbows at 90 degrees, and consider a compact standing desk so you can switch positions during the day.',
      'Snake plants, ZZ plants and pothos tolerate low light well. Water them sparingly: in a dark room the soil dries slowly and overwatering is the usual killer.',
    ],
    brands: ['Restwell', 'Oakroom Furniture', 'Leafhaus'],
  },
  {
    name: 'fitness',
    keywords: ['gym', 'protein', 'strength training', 'yoga', 'weight loss', 'home workout', 'dumbbells', 'cycling'],
    queries: [
      'How much protein do I need to build muscle if I weigh 75 kg?',
      'Give me a 30-minute home workout with only dumbbells.',
      'Is yoga enough exercise to stay fit?',
    ],
    responses: [
      'Most research suggests 1.6 to 2.2 grams of protein per kilogram of body weight per day for muscle gain, so roughly 120 to 165 grams for 75 kg, spread across meals.',
      'Do three rounds of goblet squats, dumbbell rows, push-ups, Romanian deadlifts and overhead presses, 10 to 12 reps each, with 60 seconds of rest between rounds.',
      'Yoga builds flexibility, balance and some strength, but for heart health add two or three sessions of cardio such as brisk walking, cycling or running each week.',
    ],
    brands: ['Ironleaf', 'Flowmat', 'Pedalpath'],
  },
  {
    name: 'parenting',
    keywords: ['toddler', 'baby', 'stroller', 'car seat', 'sleep training', 'preschool', 'diapers', 'family'],
    queries: [
      'How do I get my toddler to sleep through the night?',
      'What should I look for in a stroller for city walking?',
      'When do babies need to switch to a forward-facing car seat?',
    ],
    responses: [
      'A consistent bedtime routine, a dark room and the same wake-up time every day help most toddlers. Gradual approaches to sleep training work for many families.',
      'For the city, pick a light stroller with a one-hand fold, good suspension for curbs and a basket big enough for groceries.',
      'Keep children rear-facing as long as their car seat allows, usually until at least age two. Check the seat height and weight limits on its label.',
    ],
    brands: ['Littlesteps', 'Cradlecove', 'Roamkid'],
  },
  {
    name: 'gaming',
    keywords: ['gaming laptop', 'graphics card', 'console', 'headset', 'mechanical keyboard', 'esports', 'monitor', 'gaming'],
    queries: [
      'Which graphics card gives the best value for 1440p gaming?',
      'Is a gaming laptop worth it or should I build a desktop?',
      'What refresh rate monitor do I need for competitive esports?',
    ],
    responses: [
      'For 1440p at high settings, a mid-range graphics card with 12 GB of memory is the sweet spot; above that, price per frame climbs quickly.',
      'A desktop gives more performance per dollar and is easy to upgrade; a gaming laptop makes sense if you travel or have no room for a tower, monitor and keyboard.',
      'Competitive players benefit from a 144 Hz or faster monitor with low input lag; pair it with a graphics card that can actually hold those frame rates.',
    ],
    brands: ['Voltgrid', 'Framepeak', 'Clackworks'],
  },
  {
    name: 'pets',
    keywords: ['dog food', 'puppy', 'cat litter', 'pet insurance', 'dog training', 'vet', 'kitten', 'pets'],
    queries: [
      'How do I stop my puppy from biting during play?',
      'Is pet insurance worth it for an indoor cat?',
      'How much should I feed a 20 kg adult dog?',
    ],
    responses: [
      'Redirect the puppy to a chew toy the moment teeth touch skin, and end play briefly if it continues. Short, consistent dog training sessions work better than long ones.',
      'Pet insurance pays off mainly for large unexpected vet bills such as surgery. For an indoor cat, compare the premium with an emergency savings fund of the same size.',
      'A 20 kg adult dog typically needs about 1,000 to 1,200 calories a day; check the dog food label and adjust for activity and body condition.',
    ],
    brands: ['Pawsome', 'Whiskerly', 'Trailtail'],
  },
];

/** Small talk no advertiser targets: these serve requests should usually find no ad. */
export const offTopicExchanges: ReadonlyArray<{ query: string; response: string }> = [
  {
    query: 'Write a short poem about the colour of the sea at dawn.',
    response: 'Grey turns to silver, silver to blue; the tide keeps the promise the night never knew.',
  },
  {
    query: 'What is the capital of Mongolia?',
    response: 'The capital of Mongolia is Ulaanbaatar, home to nearly half of the country\'s population.',
  },
  {
    query: 'Explain the difference between weather and climate in one paragraph.',
    response: 'Weather is what the atmosphere does over hours and days; climate is the long-term pattern of that weather over decades in a region.',
  },
];
