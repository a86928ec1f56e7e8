// A notification receiver for docs/examples/chainflow.yaml: it verifies each delivery as any Standard Webhooks
// receiver should (signature, and a timestamp within 5 minutes), prints the event as one JSON line, answers 204.
//
//   NOTIFY_SECRET=whsec_… node docs/examples/receiver.js       (PORT=8081 by default, as the example's channel)
'use strict';
const { createServer } = require('node:http');
const { Webhook } = require('standardwebhooks');

const secret = process.env.NOTIFY_SECRET;
if (!secret) {
  console.error('receiver: set NOTIFY_SECRET to the channel secret chainflow signs with (whsec_…)');
  process.exit(1);
}
const webhook = new Webhook(secret);
const port = Number(process.env.PORT || 8081);

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      event = webhook.verify(raw, req.headers); // throws when forged, altered or stale
    } catch (err) {
      console.error(`receiver: refused a delivery: ${err.message}`);
      res.writeHead(400).end();
      return;
    }
    // The same webhook-id may come again (deliveries are at least once): a real receiver drops repeats by it.
    console.log(JSON.stringify({ webhook_id: req.headers['webhook-id'], ...event }));
    res.writeHead(204).end();
  });
}).listen(port, '127.0.0.1', () => console.error(`receiver: listening on http://127.0.0.1:${port}/`));
