enum PlaceholderPushSealEncryptor {}
