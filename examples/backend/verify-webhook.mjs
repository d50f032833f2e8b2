// Verifies a PushSeal gateway webhook in Node with its own crypto module alone, as the Standard
// Webhooks specification says (gateway-v1.md, "Webhooks"). Copy `verify` into your receiver; the
// `standardwebhooks` package on npm does the same.
//
//     node verify-webhook.mjs --secret-file whsec.txt --id msg_… --timestamp 1765000000 \
//         --signature "v1,…" body.json     # prints "verified", status 0; else the reason, status 1

import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const TOLERANCE_SECONDS = 300;

/**
 * Throws unless one of `signature`'s `v1,` entries is the HMAC-SHA256, under `secret` (`whsec_`
 * and base64), of `{id}.{timestamp}.{body}`, and `timestamp` is within five minutes of `now`.
 * `body` is the raw body as received (a Buffer), before any JSON parsing.
 */
export function verify(secret, id, timestamp, signature, body, now = Date.now() / 1000) {
  if (!secret.startsWith("whsec_")) throw new Error("the secret must start with whsec_");
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  if (!/^[0-9]+$/.test(timestamp)) throw new Error("webhook-timestamp is not a number");
  if (Math.abs(now - Number.parseInt(timestamp, 10)) > TOLERANCE_SECONDS) {
    throw new Error("webhook-timestamp is more than five minutes away: a replay, or a clock off");
  }
  const expected = createHmac("sha256", key)
    .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]))
    .digest();
  // During a secret rotation the gateway sends one signature per secret, space-separated.
  for (const entry of signature.split(" ")) {
    const comma = entry.indexOf(",");
    const version = entry.slice(0, comma);
    const given = Buffer.from(entry.slice(comma + 1), "base64");
    if (version === "v1" && given.length === expected.length && timingSafeEqual(given, expected)) return;
  }
  throw new Error("no signature verifies under this secret");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    options: {
      "secret-file": { type: "string" },
      id: { type: "string" },
      timestamp: { type: "string" },
      signature: { type: "string" },
    },
    allowPositionals: true,
  });
  const secret = readFileSync(values["secret-file"], "utf8").trim();
  const body = readFileSync(positionals[0]);
  try {
    verify(secret, values.id, values.timestamp, values.signature, body);
    console.log("verified");
  } catch (refusal) {
    console.log(`refused: ${refusal.message}`);
    process.exit(1);
  }
}
