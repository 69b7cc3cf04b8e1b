import type { SqlExecutor } from '../store/postgres.js';
import type { CreativeInput } from './creativeSchema.js';

export interface Creative {
  id: string;
  line_item_id: string;
  format: 'contextual_card';
  title: string;
  body: string;
  cta: string;
  destination_url: string;
  image_url: string | null;
  created_at: Date;
}

const creativeColumns = 'id, line_item_id, format, title, body, cta, destination_url, image_url, created_at';

/**
 * Stores creatives in one statement, one microsecond apart, so that they list in the order they
 * were sent (the order is created_at, id everywhere).
 */
export async function insertCreatives(tx: SqlExecutor, lineItemId: string, creatives: CreativeInput[]): Promise<Creative[]> {
  const { rows } = await tx.query<Creative>(
    `WITH inserted AS (
       INSERT INTO creatives (line_item_id, format, title, body, cta, destination_url, image_url, created_at)
       SELECT $1, format, title, body, cta, destination_url, image_url, now() + position * interval '1 microsecond'
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
         WITH ORDINALITY AS given (format, title, body, cta, destination_url, image_url, position)
       RETURNING ${creativeColumns}
     )
     SELECT ${creativeColumns} FROM inserted ORDER BY created_at, id`,
    [
      lineItemId,
      creatives.map((creative) => creative.format),
      creatives.map((creative) => creative.title),
      creatives.map((creative) => creative.body),
      creatives.map((creative) => creative.cta),
      creatives.map((creative) => creative.destination_url),
      creatives.map((creative) => creative.image_url ?? null),
    ],
  );
  return rows;
}

/** The creatives of the given line items, oldest first. */
export async function listCreatives(db: SqlExecutor, lineItemIds: string[]): Promise<Creative[]> {
  if (lineItemIds.length === 0) return [];
  const { rows } = await db.query<Creative>(
    `SELECT ${creativeColumns} FROM creatives WHERE line_item_id = ANY($1::uuid[]) ORDER BY created_at, id`,
    [lineItemIds],
  );
  return rows;
}

/** Copies every creative of one line item to another, keeping their order. */
export async function copyCreatives(tx: SqlExecutor, fromLineItemId: string, toLineItemId: string): Promise<void> {
  await tx.query(
    `INSERT INTO creatives (line_item_id, format, title, body, cta, destination_url, image_url, created_at)
     SELECT $2, format, title, body, cta, destination_url, image_url,
            now() + row_number() OVER (ORDER BY created_at, id) * interval '1 microsecond'
     FROM creatives WHERE line_item_id = $1`,
    [fromLineItemId, toLineItemId],
  );
}
