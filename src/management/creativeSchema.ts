import { z } from 'zod';
import { textBlock, textLine, webUrl } from './fieldSchemas.js';

/** One creative of the contextual_card format, the only format the service renders. */
const creativeInput = z.strictObject({
  format: z.literal('contextual_card'),
  title: textLine(90),
  body: textBlock(300),
  cta: textLine(30),
  destination_url: webUrl,
  image_url: webUrl.optional(),
});

export type CreativeInput = z.output<typeof creativeInput>;

export const creativeList = z.array(creativeInput).min(1).max(20);

export const attachCreativesBody = z.strictObject({ creatives: creativeList });
