internal import PushSealCore

/// `pushseal help`.
enum HelpText {
    static let version = "pushseal \(PushSealRelease.version) (envelope v1, cli v1; crypto: \(cryptoBackendName))"

    static let usage = """
        pushseal: end-to-end encrypted APNs payloads (envelope v1)

        Keys
          pushseal keys generate --suite x25519|p256|xchacha [--kid ID] [--out FILE]
          pushseal keys public [--application-server-key] [FILE|-]
          pushseal keys init    --store DIR
          pushseal keys import  --store DIR [--sender] [FILE|-]
          pushseal keys rotate  --store DIR [--suite x25519|p256|xchacha] [--repeat N]
          pushseal keys retire  --store DIR --kid ID [--role device|sender]
          pushseal keys list    --store DIR
          pushseal keys webpush --store DIR
          pushseal keys policy  --store DIR [--require-sealed|--allow-unsealed] [--neutral-title T] [--neutral-body B]

        Server side
          pushseal encrypt --to RECIPIENT.jwk [--sender SENDER.jwk]
                           [--placeholder-title T] [--placeholder-body B] [--placeholder-loc-key K]
                           [--clear MEMBER]... [--push-type alert|background|voip] [--pad BYTES] [--truncate]
                           [--apns-request --topic TOPIC [--collapse-id ID] [--expiration UNIX] [--priority 5|10]]
                           [--contract CONTRACT.json] [--event-id auto] [FILE|-]
          pushseal encrypt --json-lines [--to DEFAULT.jwk] [--jobs N] [options as above] [FILE|-]

        Delivery (HTTP/2, token auth; one JSON line per job: {"token", "topic", "to"+"payload" | "sealed"})
          pushseal send --auth-key AuthKey.p8 --key-id ID --team-id ID [--sandbox | --host URL] [--ca-file PEM]
                        [--concurrency N] [--timeout SECONDS] [--to DEFAULT.jwk] [--sender SENDER.jwk]
                        [options as encrypt] [FILE|-]

        Media (media-v1: encrypted attachments)
          pushseal media seal FILE --out OBJECT [--url URL]          prints the descriptor (it holds the key)
          pushseal media open OBJECT --descriptor D.json --out FILE

        Web Push (webpush-v1: RFC 8291 messages for browsers and UnifiedPush)
          pushseal webpush subscribe --endpoint URL --out RECEIVER.json   prints the subscription (it holds auth)
          pushseal webpush seal --subscription SUBSCRIPTION.json [--pad BYTES] [--ttl SECONDS]
                                [--vapid-key KEY.jwk|KEY.pem --subject mailto:…|https:…] [FILE|-]
          pushseal webpush seal --json-lines [--subscription DEFAULT.json] [options as above] [FILE|-]
          pushseal webpush open --receiver RECEIVER.json [--json-lines] [FILE|-]
          pushseal webpush send --vapid-key KEY --subject CONTACT [--ttl SECONDS] [--pad BYTES] [--timeout SECONDS]
                                [--allow-host HOST]... [--ca-file PEM] [--allow-local] [FILE|-]
                                (one JSON line per job: {"subscription", "payload", "ttl"?, "urgency"?, "topic"?})

        Device side and captured payloads
          pushseal decrypt --store DIR [--record] [--receipt] [--json-lines] [--contract CONTRACT.json]
                           [--ca-file PEM] [--allow-local-fetch] [--media-dir DIR [--allow-local-media]] [FILE|-]
          pushseal inspect [FILE|-]

        Exit status: 0 success; 1 some items failed (degraded, invalid or too large payload, bad batch
        line, a receipt not taken); 2 usage error or unreadable input. Results are JSON on standard output; messages go to
        standard error. See docs/backend.md and docs/cli-v1.md.
        """
}
