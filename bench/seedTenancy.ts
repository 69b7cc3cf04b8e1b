import { randomBytes } from 'node:crypto';
import { addMember, createApiKey, createOrganization } from '../src/admin/tenancyRepository.js';
import { createPublisher } from '../src/placements/publisherRepository.js';
import { changeCertification, createPlacement } from '../src/placements/placementRepository.js';
import type { Postgres } from '../src/store/postgres.js';

export interface BenchPlacement {
  id: string;
  certified: boolean;
}

export interface BenchTenancy {
  runId: string;
  organizationId: string;
  userId: string;
  /** An API key with both permissions. */
  apiKey: string;
  publisherId: string;
  publisherToken: string;
  placements: BenchPlacement[];
}

/**
 * One advertiser organization (a user and an API key with campaigns and reporting) and one
 * publisher with `placements` placements, the first `certified` of them certified. Made with the
 * admin API's own repository functions, so the rows are exactly what the admin routes would make;
 * names carry a run id, so runs never collide on a shared server database.
 */
export async function seedTenancy(db: Postgres, placements: number, certified: number): Promise<BenchTenancy> {
  const runId = randomBytes(4).toString('hex');
  const organization = await createOrganization(db, `bench ${runId}`);
  const user = await addMember(db, organization.id, `bench-${runId}@example.com`);
  const key = await createApiKey(db, organization.id, ['campaigns', 'reporting']);
  const publisher = await db.transaction((tx) => createPublisher(tx, `bench publisher ${runId}`));
  const made: BenchPlacement[] = [];
  for (let index = 0; index < placements; index++) {
    const id = `bench-${runId}-chat-${String(index).padStart(3, '0')}`;
    await db.transaction((tx) => createPlacement(tx, publisher.id, id, `bench chat surface ${index}`));
    const isCertified = index < certified;
    if (isCertified) await changeCertification(db, id, 'certified', 'bench', 'integration review approved (bench seed)');
    made.push({ id, certified: isCertified });
  }
  return {
    runId,
    organizationId: organization.id,
    userId: user.id,
    apiKey: key.key,
    publisherId: publisher.id,
    publisherToken: publisher.token,
    placements: made,
  };
}
