enum PlaceholderPushSealDecryptorTests {}
