enum PlaceholderPushSealEncryptorTests {}
