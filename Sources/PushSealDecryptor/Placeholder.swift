enum PlaceholderPushSealDecryptor {}
