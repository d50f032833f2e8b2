enum PlaceholderPushSealCoreTests {}
