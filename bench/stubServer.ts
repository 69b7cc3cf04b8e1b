import Fastify from 'fastify';

/**
 * The yardstick each HTTP scenario is measured against: a bare fastify process doing the least a
 * route of that kind can do (parse the request, answer a fixed body), on the same machine, under
 * the same load, in the same run. `node stubServer.js <serve|track> <port>`.
 */
const TRANSPARENT_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

// About the size of a real token, so the fixed ad weighs what a real one does on the wire.
const token = 'x'.repeat(360);
const fixedAd = {
  ad: {
    format: 'contextual_card',
    render: {
      label: 'Sponsored',
      title: 'Trail running shoes built for wet rock',
      body: 'Grippy outsoles and a drainage upper for runs that end in a river crossing.',
      cta: 'Shop trail shoes',
      brand_name: 'Northfold Outdoor',
      image_url: 'https://cdn.example.com/creatives/trail-shoe.jpg',
    },
    tracking: {
      impression_url: `http://127.0.0.1/v1/t/i/${token}`,
      click_url: `http://127.0.0.1/v1/t/c/${token}`,
    },
  },
};

async function main(kind: string | undefined, port: number): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/healthz', async () => ({ status: 'ok' }));
  if (kind === 'serve') {
    app.post('/v1/serve', async (request, reply) => {
      if (!request.headers.authorization) return reply.code(401).send({ error: { code: 'auth_missing', message: 'no token' } });
      return fixedAd;
    });
  } else if (kind === 'track') {
    // A wildcard, as the service's routes: a token (about 400 characters) is beyond the router's
    // 100-character limit for a `:token` parameter, which answered every pixel 414 until session 25.
    app.get('/v1/t/i/*', async (_request, reply) =>
      reply.header('cache-control', 'no-store').type('image/gif').send(TRANSPARENT_GIF),
    );
    app.get('/v1/t/c/*', async (_request, reply) => reply.redirect('https://advertiser.example.com/landing?click_id=0', 302));
  } else {
    throw new Error(`unknown stub kind ${kind}: serve or track`);
  }
  await app.listen({ port, host: '127.0.0.1' });
  const stop = () => void app.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main(process.argv[2], Number(process.argv[3])).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
